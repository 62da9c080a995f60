#!/usr/bin/env bash
# A deliberately broken UCI engine for tests/server/engines.rs (the other scripts here run it
# in one mode each). It shuffles a knight, b1-c3-b1 as white and g8-f6-g8 as black, while the
# tests shuffle the other, and misbehaves as $1 says:
#   good        answers every go
#   crash_once  exits at its second go, once per test process (a marker file named after the
#               test's pid, which the test removes), then behaves
#   crash       exits at every go
#   garbage     answers go with a line that is no move
#   illegal     answers go with a well-formed move that is not legal (e7e2)
#   silent      never answers go, nor stop
mode=${1:-good}
gos=0
plies=0
marker="/tmp/gambit-fake-engine-crashed-$PPID"
while read -r line; do
    case "$line" in
    uci)
        echo "id name Fake $mode"
        echo "option name Skill Level type spin default 20 min 0 max 20"
        echo "option name Threads type spin default 1 min 1 max 8"
        echo "option name Hash type spin default 16 min 1 max 1024"
        echo "uciok"
        ;;
    isready) echo "readyok" ;;
    position*)
        if [[ "$line" == *" moves "* ]]; then
            read -r -a moves <<<"${line#* moves }"
            plies=${#moves[@]}
        else
            plies=0
        fi
        ;;
    go*)
        gos=$((gos + 1))
        case "$mode" in
        crash) exit 1 ;;
        crash_once)
            if [ "$gos" -eq 2 ] && [ ! -e "$marker" ]; then
                touch "$marker"
                exit 1
            fi
            ;;
        garbage)
            echo "info string the moon is made of cheese"
            echo "bestmove banana"
            continue
            ;;
        illegal)
            echo "bestmove e7e2"
            continue
            ;;
        silent) continue ;;
        esac
        case $((plies % 4)) in
        0) echo "bestmove b1c3" ;;
        1) echo "bestmove g8f6" ;;
        2) echo "bestmove c3b1" ;;
        3) echo "bestmove f6g8" ;;
        esac
        ;;
    quit) exit 0 ;;
    esac
done
