#!/usr/bin/env node
// Checks rendered Kubernetes manifests (the output of `kubectl kustomize`) before
// anything reaches a cluster:
//
// - every object validates against its Kubernetes schema (npm's kubernetes-models,
//   its Prometheus Operator models for PodMonitor and PrometheusRule, and its
//   cert-manager models for Certificate and Issuer);
// - our own rules, which the schemas do not express: every long-running container
//   has startup, readiness and liveness probes on ports it declares; every container
//   has CPU and memory requests and limits and a locked-down security context
//   (non-root, read-only root file system, no privilege escalation, all
//   capabilities dropped); every service listens (MAMLAKA_LISTEN) on all
//   interfaces, on the port its probes check; every image is one the Dockerfile builds, with a tag;
//   every Service, PodDisruptionBudget, NetworkPolicy and PodMonitor selects pods
//   that exist, on ports they declare; every ConfigMap and Secret a pod references,
//   and every key, is defined (or listed as created outside, --external-secrets);
//   matchmaking has its seat token key (MAMLAKA_SEAT_TOKEN_KEY_FILE), in a volume
//   it mounts.
//
//   node validate.js --dockerfile deploy/docker/Dockerfile \
//     [--external-secrets deploy/k8s/prod/external-secrets.yaml] rendered.yaml...
//
// Prints one line per problem, "<kind>/<name>: <problem>", and exits 1 if there is
// any, 0 otherwise (2 for bad arguments).
'use strict';

const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);
// The pods the CloudNativePG operator makes for a Cluster, with the labels and
// ports it gives them, and the application Secret it writes (<cluster>-app).
const CNPG_INSTANCE_PORTS = [
  { name: 'postgresql', containerPort: 5432 },
  { name: 'metrics', containerPort: 9187 },
  { name: 'status', containerPort: 8000 },
];
const CNPG_APP_SECRET_KEYS = ['uri', 'jdbc-uri', 'host', 'port', 'dbname', 'user', 'username', 'password', 'pgpass'];
// The operator's CA of the cluster's server certificates (<cluster>-ca).
const CNPG_CA_SECRET_KEYS = ['ca.crt', 'ca.key'];
// Stages of the Dockerfile that are not images of their own.
const INTERNAL_STAGES = new Set(['builder', 'runtime']);

function parseArgs(argv) {
  const args = { dockerfile: null, externalSecrets: null, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dockerfile') args.dockerfile = argv[++i];
    else if (a === '--external-secrets') args.externalSecrets = argv[++i];
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}`);
    else args.files.push(a);
  }
  if (!args.dockerfile || args.files.length === 0) {
    throw new Error('usage: validate.js --dockerfile FILE [--external-secrets FILE] rendered.yaml...');
  }
  return args;
}

// The image targets of a multi-stage Dockerfile: "FROM ... AS <name>".
function dockerTargets(file) {
  const targets = new Set();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*FROM\s+\S+\s+AS\s+(\S+)/i.exec(line);
    if (m && !INTERNAL_STAGES.has(m[1])) targets.add(m[1]);
  }
  return targets;
}

function loadObjects(files) {
  const objects = [];
  for (const file of files) {
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
      const obj = doc.toJS();
      if (!obj) continue;
      // kustomize 5 folds long base64 values over lines; the API server's decoder
      // skips the newlines, the schema's "byte" format does not.
      if (obj.kind === 'Secret' && obj.data) {
        for (const k of Object.keys(obj.data)) obj.data[k] = String(obj.data[k]).replace(/\s+/g, '');
      }
      objects.push(obj);
    }
  }
  return objects;
}

function objectName(obj) {
  return `${obj.kind}/${(obj.metadata && obj.metadata.name) || '?'}`;
}

// The kubernetes-models class for an object's apiVersion and kind.
function modelFor(obj) {
  const [group, version] = obj.apiVersion.includes('/')
    ? obj.apiVersion.split('/')
    : [null, obj.apiVersion];
  const candidates = [];
  if (group === 'monitoring.coreos.com') {
    candidates.push(`@kubernetes-models/prometheus-operator/${group}/${version}/${obj.kind}`);
  } else if (group === 'cert-manager.io') {
    candidates.push(`@kubernetes-models/cert-manager/${group}/${version}/${obj.kind}`);
  } else if (group === 'postgresql.cnpg.io') {
    candidates.push(`@kubernetes-models/cloudnative-pg/${group}/${version}/${obj.kind}`);
  } else {
    candidates.push(`kubernetes-models/${group ? `${group}/` : ''}${version}/${obj.kind}`);
  }
  for (const c of candidates) {
    try {
      return require(c)[obj.kind];
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  return null;
}

function validateSchema(obj, report) {
  if (!obj.apiVersion || !obj.kind) return report(obj, 'has no apiVersion or kind');
  const Model = modelFor(obj);
  if (!Model) return report(obj, `no schema for ${obj.apiVersion} ${obj.kind}`);
  try {
    new Model(obj).validate();
  } catch (e) {
    report(obj, `schema: ${e.message}`);
  }
}

function podTemplate(obj) {
  if (obj.kind === 'CronJob') return obj.spec && obj.spec.jobTemplate.spec.template;
  return obj.spec && obj.spec.template;
}

function matches(selector, labels) {
  const entries = Object.entries(selector || {});
  return entries.length > 0 && entries.every(([k, v]) => labels[k] === v);
}

// Everything the rules need to know about the rendered set.
function index(objects, externalSecrets) {
  const configMaps = new Map();
  const configMapData = new Map();
  const secrets = new Map();
  const pods = [];  // {owner, labels, spec, runsToCompletion}
  const operatorPods = [];  // made by an operator: selected, not checked as ours
  const clusters = new Set();  // CloudNativePG clusters' names
  for (const obj of objects) {
    const name = obj.metadata && obj.metadata.name;
    if (obj.kind === 'ConfigMap') {
      configMaps.set(name, new Set([...Object.keys(obj.data || {}), ...Object.keys(obj.binaryData || {})]));
      configMapData.set(name, obj.data || {});
    } else if (obj.kind === 'Secret') {
      secrets.set(name, new Set([...Object.keys(obj.data || {}), ...Object.keys(obj.stringData || {})]));
    } else if (obj.kind === 'Certificate' && obj.spec && obj.spec.secretName) {
      // cert-manager writes the certificate, its key and the issuing CA there.
      secrets.set(obj.spec.secretName, new Set(['tls.crt', 'tls.key', 'ca.crt']));
    } else if (isCnpgCluster(obj)) {
      secrets.set(`${name}-app`, new Set(CNPG_APP_SECRET_KEYS));
      secrets.set(`${name}-ca`, new Set(CNPG_CA_SECRET_KEYS));
      clusters.add(name);
      operatorPods.push({
        owner: obj,
        labels: { 'cnpg.io/cluster': name, 'cnpg.io/podRole': 'instance' },
        spec: { containers: [{ name: 'postgres', ports: CNPG_INSTANCE_PORTS }] },
      });
    } else if (WORKLOAD_KINDS.has(obj.kind)) {
      const template = podTemplate(obj);
      if (template && template.spec) {
        pods.push({
          owner: obj,
          labels: (template.metadata && template.metadata.labels) || {},
          spec: template.spec,
          runsToCompletion: obj.kind === 'Job' || obj.kind === 'CronJob',
        });
      }
    }
  }
  for (const [name, keys] of Object.entries(externalSecrets || {})) {
    if (!secrets.has(name)) secrets.set(name, new Set(keys));
  }
  return { configMaps, configMapData, secrets, pods, operatorPods, clusters };
}

function isCnpgCluster(obj) {
  return obj.kind === 'Cluster' && String(obj.apiVersion).startsWith('postgresql.cnpg.io/');
}

// The Secrets a CloudNativePG Cluster reads: its backups' object-store
// credentials, and every key of them, are defined.
function checkClusterSecrets(obj, idx, report) {
  const store = (obj.spec.backup && obj.spec.backup.barmanObjectStore) || {};
  const credentials = store.s3Credentials || store.googleCredentials || store.azureCredentials || {};
  for (const [field, ref] of Object.entries(credentials)) {
    if (!ref || typeof ref !== 'object' || !ref.name) continue;
    const where = `backup credentials ${field}`;
    if (!idx.secrets.has(ref.name)) report(obj, `${where} refer to Secret ${ref.name}, which is not defined`);
    else if (ref.key && !idx.secrets.get(ref.name).has(ref.key)) {
      report(obj, `${where} refer to key ${ref.key} of Secret ${ref.name}, which it does not have`);
    }
  }
}

function containerPorts(spec) {
  const numbers = new Set();
  const names = new Set();
  for (const c of [...(spec.containers || []), ...(spec.initContainers || [])]) {
    for (const p of c.ports || []) {
      numbers.add(p.containerPort);
      if (p.name) names.add(p.name);
    }
  }
  return { numbers, names };
}

function probePort(probe) {
  for (const k of ['grpc', 'httpGet', 'tcpSocket']) if (probe[k]) return probe[k].port;
  return undefined;
}

function checkContainer(pod, c, targets, report) {
  const owner = pod.owner;
  const where = `container ${c.name}`;
  const ports = containerPorts(pod.spec);
  if (!pod.runsToCompletion) {
    for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const probe = c[kind];
      if (!probe) {
        report(owner, `${where} has no ${kind}`);
        continue;
      }
      const port = probePort(probe);
      if (port === undefined) {
        if (!probe.exec) report(owner, `${where} ${kind} has no grpc, httpGet, tcpSocket or exec`);
      } else if (!(ports.numbers.has(port) || ports.names.has(port))) {
        report(owner, `${where} ${kind} probes port ${port}, which the pod does not declare`);
      }
    }
  }
  const res = c.resources || {};
  for (const kind of ['requests', 'limits']) {
    for (const r of ['cpu', 'memory']) {
      if (!res[kind] || res[kind][r] === undefined) report(owner, `${where} has no ${r} ${kind.slice(0, -1)}`);
    }
  }
  const pod_sc = pod.spec.securityContext || {};
  const sc = c.securityContext || {};
  const runAsNonRoot = sc.runAsNonRoot !== undefined ? sc.runAsNonRoot : pod_sc.runAsNonRoot;
  if (runAsNonRoot !== true) report(owner, `${where} does not set runAsNonRoot: true`);
  const uid = sc.runAsUser !== undefined ? sc.runAsUser : pod_sc.runAsUser;
  if (uid === 0) report(owner, `${where} runs as uid 0`);
  if (sc.allowPrivilegeEscalation !== false) report(owner, `${where} does not set allowPrivilegeEscalation: false`);
  if (sc.readOnlyRootFilesystem !== true) report(owner, `${where} does not set readOnlyRootFilesystem: true`);
  if (sc.privileged === true) report(owner, `${where} is privileged`);
  const drop = (sc.capabilities && sc.capabilities.drop) || [];
  if (!drop.includes('ALL')) report(owner, `${where} does not drop ALL capabilities`);

  checkImage(owner, where, c.image || '', targets, report);
}

// The environment a container gets from its ConfigMaps and literal values.
function containerEnv(c, idx) {
  const env = {};
  for (const e of c.envFrom || []) {
    if (e.configMapRef && idx.configMapData.has(e.configMapRef.name)) {
      Object.assign(env, idx.configMapData.get(e.configMapRef.name));
    }
  }
  for (const e of c.env || []) if (e.value !== undefined) env[e.name] = e.value;
  return env;
}

// The address a service listens on (MAMLAKA_LISTEN) must be every interface or the
// pod's IP, on a port the pod declares, which the gRPC probes check (or, when it
// serves TLS, its plaintext health port, MAMLAKA_HEALTH_ADDRESS, declared too); its metrics
// port (MAMLAKA_METRICS_PORT) must be declared too; and every $(VAR) in an env
// value must name a variable defined before it.
function checkListen(pod, c, idx, report) {
  const owner = pod.owner;
  const where = `container ${c.name}`;
  const env = containerEnv(c, idx);
  const ports = containerPorts(pod.spec);
  const listen = env.MAMLAKA_LISTEN;
  if (listen !== undefined) {
    const m = /^(.*):(\d+)$/.exec(listen);
    if (!m) {
      report(owner, `${where} MAMLAKA_LISTEN=${listen} is not host:port`);
    } else {
      const [, host, port] = m;
      if (!['0.0.0.0', '[::]', '$(POD_IP)'].includes(host)) {
        report(owner, `${where} listens on ${host}, not on every interface or the pod IP: probes and other pods cannot reach it`);
      }
      if (!ports.numbers.has(Number(port))) report(owner, `${where} listens on port ${port}, which the pod does not declare`);
      const health = /:(\d+)$/.exec(env.MAMLAKA_HEALTH_ADDRESS || '');
      if (health && !ports.numbers.has(Number(health[1]))) {
        report(owner, `${where} serves health checks on port ${health[1]}, which the pod does not declare`);
      }
      for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        const grpcPort = c[kind] && c[kind].grpc && c[kind].grpc.port;
        const tcpPort = c[kind] && c[kind].tcpSocket && c[kind].tcpSocket.port;
        if (grpcPort !== undefined && grpcPort !== Number(port) &&
            !(health && grpcPort === Number(health[1]))) {
          report(owner, `${where} ${kind} checks port ${grpcPort}, but the service listens on ${port}`);
        }
        if (tcpPort !== undefined && tcpPort !== Number(port)) {
          report(owner, `${where} ${kind} checks port ${tcpPort}, but the service listens on ${port}`);
        }
      }
      const grpcProbed = ['startupProbe', 'readinessProbe', 'livenessProbe'].some((k) => c[k] && c[k].grpc);
      if (env.MAMLAKA_TLS_CERT && !health && grpcProbed) {
        report(owner, `${where} serves TLS, which the kubelet's gRPC probes cannot speak: set MAMLAKA_HEALTH_ADDRESS and probe that port`);
      }
    }
  }
  const metrics = env.MAMLAKA_METRICS_PORT || env.TRIX_BOT_METRICS_PORT;
  if (!pod.runsToCompletion && metrics !== undefined && Number(metrics) >= 0 && !ports.numbers.has(Number(metrics))) {
    report(owner, `${where} serves metrics on port ${metrics}, which the pod does not declare`);
  }
  const defined = new Set();
  for (const e of c.env || []) {
    for (const ref of String(e.value || '').matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)) {
      if (!defined.has(ref[1])) report(owner, `${where} env ${e.name} uses $(${ref[1]}), which is not defined before it`);
    }
    defined.add(e.name);
  }
}

// Matchmaking is given its seat token key, a file in a volume it mounts: without
// it, seat tokens are derived from its credential token, which whoever holds that
// could repeat.
function checkSeatTokenKey(pod, c, idx, report) {
  if (c.name !== 'matchmaking-service') return;
  const where = `container ${c.name}`;
  const key = containerEnv(c, idx).MAMLAKA_SEAT_TOKEN_KEY_FILE;
  const mounts = (c.volumeMounts || []).map((m) => m.mountPath.replace(/\/$/, '') + '/');
  if (!key) {
    report(pod.owner, `${where} has no MAMLAKA_SEAT_TOKEN_KEY_FILE: its seat tokens would be derived from its credential token`);
  } else if (!mounts.some((m) => key.startsWith(m))) {
    report(pod.owner, `${where} env MAMLAKA_SEAT_TOKEN_KEY_FILE=${key} is not in a volume it mounts`);
  }
}

// A database URL that leads to a CloudNativePG cluster verifies the server's
// certificate: spelled out (the operator's uri does not verify), with
// sslmode=verify-full and an sslrootcert in a volume the container mounts (the
// cluster's CA, <cluster>-ca). Anyone on the path could otherwise pose as the
// database and read every game, rating and ledger line.
function checkDatabaseTls(pod, c, idx, report) {
  const mounts = (c.volumeMounts || []).map((m) => m.mountPath.replace(/\/$/, '') + '/');
  for (const e of c.env || []) {
    if (!/DATABASE_URL$/.test(e.name)) continue;
    const where = `container ${c.name} env ${e.name}`;
    const ref = e.valueFrom && e.valueFrom.secretKeyRef;
    if (ref && [...idx.clusters].some((n) => ref.name === `${n}-app`)) {
      report(pod.owner, `${where} is the operator's ${ref.key} of ${ref.name}, which does not verify the database's certificate: spell it out with sslmode=verify-full`);
      continue;
    }
    if (e.value === undefined) continue;
    const host = (/^postgres(?:ql)?:\/\/(?:[^@/]*@)?([^:/?,]*)/.exec(e.value) || [])[1] || '';
    if (![...idx.clusters].some((n) => new RegExp(`^${n}-(rw|ro|r)(\\.|$)`).test(host))) continue;
    const query = new URLSearchParams(e.value.split('?')[1] || '');
    const root = query.get('sslrootcert');
    if (query.get('sslmode') !== 'verify-full') {
      report(pod.owner, `${where} does not verify the database's certificate (sslmode=verify-full)`);
    } else if (!root || !mounts.some((m) => root.startsWith(m))) {
      report(pod.owner, `${where} sslrootcert=${root} is not in a volume it mounts`);
    }
  }
}

function checkImage(owner, where, image, targets, report) {
  // registry/path/name:tag or ...@sha256:digest
  const withoutDigest = image.split('@')[0];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  const repo = colon >= 0 ? withoutDigest.slice(0, colon) : withoutDigest;
  const tag = colon >= 0 ? withoutDigest.slice(colon + 1) : '';
  const program = repo.slice(repo.lastIndexOf('/') + 1);
  if (!targets.has(program)) {
    report(owner, `${where} image ${image} is not one the Dockerfile builds (${[...targets].join(', ')})`);
  }
  if (!image.includes('@') && (tag === '' || tag === 'latest')) {
    report(owner, `${where} image ${image} has no fixed tag`);
  }
}

// Every ConfigMap and Secret, and every key, that a pod refers to exists.
function checkReferences(pod, idx, report) {
  const owner = pod.owner;
  const need = (kind, name, key, where) => {
    const table = kind === 'ConfigMap' ? idx.configMaps : idx.secrets;
    if (!table.has(name)) return report(owner, `${where} refers to ${kind} ${name}, which is not defined`);
    if (key !== undefined && !table.get(name).has(key)) {
      report(owner, `${where} refers to key ${key} of ${kind} ${name}, which it does not have`);
    }
  };
  for (const c of [...(pod.spec.containers || []), ...(pod.spec.initContainers || [])]) {
    for (const e of c.env || []) {
      const from = e.valueFrom || {};
      if (from.secretKeyRef && !from.secretKeyRef.optional) {
        need('Secret', from.secretKeyRef.name, from.secretKeyRef.key, `container ${c.name} env ${e.name}`);
      }
      if (from.configMapKeyRef && !from.configMapKeyRef.optional) {
        need('ConfigMap', from.configMapKeyRef.name, from.configMapKeyRef.key, `container ${c.name} env ${e.name}`);
      }
    }
    for (const e of c.envFrom || []) {
      if (e.configMapRef && !e.configMapRef.optional) need('ConfigMap', e.configMapRef.name, undefined, `container ${c.name} envFrom`);
      if (e.secretRef && !e.secretRef.optional) need('Secret', e.secretRef.name, undefined, `container ${c.name} envFrom`);
    }
    const volumes = new Set((pod.spec.volumes || []).map((v) => v.name));
    for (const m of c.volumeMounts || []) {
      if (!volumes.has(m.name)) report(owner, `container ${c.name} mounts volume ${m.name}, which the pod does not define`);
    }
  }
  for (const v of pod.spec.volumes || []) {
    if (v.secret && !v.secret.optional) {
      need('Secret', v.secret.secretName, undefined, `volume ${v.name}`);
      for (const item of v.secret.items || []) need('Secret', v.secret.secretName, item.key, `volume ${v.name}`);
    }
    if (v.configMap && !v.configMap.optional) {
      need('ConfigMap', v.configMap.name, undefined, `volume ${v.name}`);
      for (const item of v.configMap.items || []) need('ConfigMap', v.configMap.name, item.key, `volume ${v.name}`);
    }
  }
}

function selectedPods(selector, idx) {
  return [...idx.pods, ...idx.operatorPods].filter((p) => matches(selector, p.labels));
}

function checkSelectors(obj, idx, report) {
  if (obj.kind === 'Service') {
    const selector = obj.spec && obj.spec.selector;
    if (!selector || Object.keys(selector).length === 0) return;  // externally managed endpoints
    const pods = selectedPods(selector, idx);
    if (pods.length === 0) return report(obj, `selects no pods (${JSON.stringify(selector)})`);
    for (const port of obj.spec.ports || []) {
      const target = port.targetPort !== undefined ? port.targetPort : port.port;
      for (const p of pods) {
        const ports = containerPorts(p.spec);
        if (!(ports.numbers.has(target) || ports.names.has(target))) {
          report(obj, `port ${port.name || port.port} targets ${target}, which ${objectName(p.owner)} does not declare`);
        }
      }
    }
  } else if (obj.kind === 'PodDisruptionBudget' || obj.kind === 'PodMonitor') {
    const selector = obj.spec && obj.spec.selector && obj.spec.selector.matchLabels;
    const pods = selectedPods(selector, idx);
    if (pods.length === 0) return report(obj, `selects no pods (${JSON.stringify(selector)})`);
    if (obj.kind === 'PodMonitor') {
      for (const ep of obj.spec.podMetricsEndpoints || []) {
        if (ep.port && !pods.some((p) => containerPorts(p.spec).names.has(ep.port))) {
          report(obj, `scrapes port ${ep.port}, which no selected pod declares`);
        }
      }
    }
  } else if (obj.kind === 'NetworkPolicy') {
    const selector = obj.spec.podSelector && obj.spec.podSelector.matchLabels;
    if (!selector || Object.keys(selector).length === 0) return;  // every pod
    const pods = selectedPods(selector, idx);
    if (pods.length === 0) return report(obj, `applies to no pods (${JSON.stringify(selector)})`);
    for (const rule of obj.spec.ingress || []) {
      for (const port of rule.ports || []) {
        if (!pods.some((p) => containerPorts(p.spec).numbers.has(port.port) || containerPorts(p.spec).names.has(port.port))) {
          report(obj, `admits port ${port.port}, which no selected pod declares`);
        }
      }
      // A peer in this namespace (a podSelector without a namespaceSelector) must exist.
      for (const peer of rule.from || []) {
        if (peer.podSelector && !peer.namespaceSelector && !peer.ipBlock) {
          const labels = peer.podSelector.matchLabels;
          if (labels && Object.keys(labels).length > 0 && selectedPods(labels, idx).length === 0) {
            report(obj, `admits pods ${JSON.stringify(labels)}, which do not exist`);
          }
        }
      }
    }
  }
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  const targets = dockerTargets(args.dockerfile);
  const externalSecrets = args.externalSecrets
    ? YAML.parse(fs.readFileSync(args.externalSecrets, 'utf8'))
    : {};
  const objects = loadObjects(args.files);
  const problems = [];
  const report = (obj, message) => problems.push(`${objectName(obj)}: ${message}`);

  const seen = new Set();
  for (const obj of objects) {
    validateSchema(obj, report);
    const key = `${obj.kind}/${obj.metadata && obj.metadata.namespace}/${obj.metadata && obj.metadata.name}`;
    if (seen.has(key)) report(obj, 'is defined twice');
    seen.add(key);
  }
  const idx = index(objects, externalSecrets);
  for (const pod of idx.pods) {
    for (const c of [...(pod.spec.containers || []), ...(pod.spec.initContainers || [])]) {
      checkContainer(pod, c, targets, report);
      checkListen(pod, c, idx, report);
      checkSeatTokenKey(pod, c, idx, report);
      checkDatabaseTls(pod, c, idx, report);
    }
    checkReferences(pod, idx, report);
  }
  for (const obj of objects) checkSelectors(obj, idx, report);
  for (const obj of objects.filter(isCnpgCluster)) checkClusterSecrets(obj, idx, report);

  for (const p of problems) console.log(p);
  const files = args.files.map((f) => path.basename(f)).join(', ');
  console.log(`validate: ${objects.length} objects in ${files}, ${problems.length} problem(s)`);
  return problems.length > 0 ? 1 : 0;
}

process.exitCode = main();
