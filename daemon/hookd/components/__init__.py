"""The daemon's components (hookd.runtime.lifecycle.Component): each starts, stops, and publishes its own
status and counters; hookd.app composes them and the Supervisor runs them. The control service, /metrics,
the OTLP metrics and the fleet's status reports read these components, never the daemon."""
