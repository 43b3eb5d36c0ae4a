#!/usr/bin/env node
// Writes every PromQL query of a Grafana dashboard (argument) as a recording rule
// (stdout), so that `promtool check rules` parses each one. Grafana's variables
// become what Grafana would put there: $__rate_interval a duration, $namespace a
// name.
'use strict';
const fs = require('fs');
const YAML = require('yaml');

const dashboard = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const rules = [];
const visit = (panels) => {
  for (const p of panels || []) {
    for (const t of p.targets || []) {
      const expr = t.expr.replace(/\$__rate_interval/g, '5m').replace(/\$namespace/g, 'mamlaka');
      rules.push({ record: `dashboard:panel_${p.id}_${t.refId}`, expr });
    }
    visit(p.panels);
  }
};
visit(dashboard.panels);
if (rules.length === 0) {
  console.error('dashboard-rules: no queries in the dashboard');
  process.exitCode = 1;
} else {
  process.stdout.write(YAML.stringify({ groups: [{ name: 'dashboard', rules }] }));
}
