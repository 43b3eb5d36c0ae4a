"""TLS for the bot's channels, with the options of the C++ programs (trix-bot's
--tls, --tls_ca, --tls_client_cert, --tls_client_key): a CA bundle the services'
certificates must chain to (the system's roots by default) and, for a table
service that requires one (mutual TLS), a client certificate and its key.

    from mamlaka_bot import channel_credentials, serve
    serve(address, key, Mine, credentials=channel_credentials(ca_file="ca.crt"))

or from the environment, as trix-bot reads it (TRIX_BOT_TLS=true, TRIX_BOT_TLS_CA,
TRIX_BOT_TLS_CLIENT_CERT, TRIX_BOT_TLS_CLIENT_KEY):

    serve(address, key, Mine, credentials=credentials_from_env())
"""

import os

import grpc


def _read(path):
    if not path:
        return None
    with open(path, "rb") as f:
        return f.read()


def channel_credentials(ca_file=None, client_cert_file=None, client_key_file=None):
    """grpc.ssl_channel_credentials from PEM files; ValueError when a client
    certificate comes without its key or the other way round."""
    if bool(client_cert_file) != bool(client_key_file):
        raise ValueError("TLS needs both a client certificate and its key "
                         "(--tls_client_cert, --tls_client_key)")
    return grpc.ssl_channel_credentials(root_certificates=_read(ca_file),
                                        private_key=_read(client_key_file),
                                        certificate_chain=_read(client_cert_file))


def credentials_from_env(prefix="TRIX_BOT_", environ=None):
    """The credentials the environment's TLS settings describe, or None (plaintext)
    when TLS is off: on with <prefix>TLS=true (or 1), or when any file is named."""
    env = os.environ if environ is None else environ
    ca, cert, key = (env.get(prefix + name) or None
                     for name in ("TLS_CA", "TLS_CLIENT_CERT", "TLS_CLIENT_KEY"))
    enabled = env.get(prefix + "TLS", "").lower() in ("1", "true", "yes")
    if not (enabled or ca or cert or key):
        return None
    return channel_credentials(ca, cert, key)
