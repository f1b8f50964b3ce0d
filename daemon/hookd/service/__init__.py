"""hookd under a service manager: what the configured daemon needs (needs), the systemd units
(systemd), the launchd agent (launchd). `hookd service` (hookd.cli.service) writes and removes them."""
