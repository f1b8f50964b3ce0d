"""What an organisation sees of and sets for its fleet of daemons (docs/fleet.md): status reports in OPA's
status API format and as OTel metrics, discovery, and decision records as OCSF events."""
