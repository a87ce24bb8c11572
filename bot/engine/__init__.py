"""Run rules, policy (severity, suppression), finding identity, parallel work."""
