#!/usr/bin/env node
// Writes the rule groups of every PrometheusRule in rendered manifests (stdin) as
// a plain Prometheus rule file (stdout), for `promtool check rules` and
// `promtool test rules`.
'use strict';
const YAML = require('yaml');

let text = '';
process.stdin.on('data', (d) => { text += d; });
process.stdin.on('end', () => {
  const groups = [];
  for (const doc of YAML.parseAllDocuments(text)) {
    const obj = doc.toJS();
    if (obj && obj.kind === 'PrometheusRule') groups.push(...obj.spec.groups);
  }
  if (groups.length === 0) {
    console.error('extract-rules: no PrometheusRule in the input');
    process.exitCode = 1;
    return;
  }
  process.stdout.write(YAML.stringify({ groups }));
});
