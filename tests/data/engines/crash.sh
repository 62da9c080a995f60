#!/usr/bin/env bash
# The fake engine (fake_engine.sh) in mode crash.
exec "$(dirname "$0")/fake_engine.sh" crash
