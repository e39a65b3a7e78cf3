"""SoC descriptions shipped with archsim (TOML, validated on load)."""
