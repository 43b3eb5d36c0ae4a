# PostgreSQL 15 from Debian's packages, for the compose stack where no image
# registry is reachable (elsewhere the official postgres:15 image does the same
# job). It takes the official image's settings: POSTGRES_USER, POSTGRES_PASSWORD,
# POSTGRES_DB; data in /var/lib/postgresql/data.
#
#   docker build --network=host -f deploy/docker/postgres.Dockerfile \
#     --build-arg BASE_IMAGE=mamlaka/debian:12-slim -t mamlaka/postgres:15 deploy/docker
# context: deploy/docker
ARG BASE_IMAGE=debian:12-slim
FROM ${BASE_IMAGE}
# No default cluster from the package: the entrypoint makes one in $PGDATA.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/no-main.conf \
 && apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data \
 && install -d -o postgres -g postgres /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
LABEL org.opencontainers.image.title="postgres" \
      org.opencontainers.image.description="PostgreSQL 15 (Debian) for Mamlaka's compose stack"
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
