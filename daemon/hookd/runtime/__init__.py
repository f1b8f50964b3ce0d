"""What the daemon needs of its process and host: lifecycle, logging, service-manager notification, users,
isolated starts, metrics and the shipped data files."""
