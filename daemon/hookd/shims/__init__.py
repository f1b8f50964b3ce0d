"""The shims hookd registers with the agents: their generated agent tables (table) and the native build (build)."""
