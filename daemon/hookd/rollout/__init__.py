"""Rolling policy out without fear (docs/rollout.md): monitor and shadow layers evaluated after the reply
(`observe`), how two decisions compare (`compare`), the replay store and `hookd replay` (`replay`), and
OpenTelemetry export of decision records and metrics (`otel`)."""
