"""How hookd logs: one JSON line per event on stderr for the daemon and its worker processes, plain stderr
for one-shot commands. Owned here so that every process configures structlog the same way."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(level: str) -> None:
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


def quiet_logging() -> None:
    """Log lines of a one-shot command (a Python policy's traceback, say) go to stderr, never into its output."""
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))
