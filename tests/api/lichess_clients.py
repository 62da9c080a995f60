"""A whole game through gambit's lichess-compatible API, driven by berserk (the Python client of
lichess's API) exactly as it drives lichess: a Bot API account against a Board API account,
challenges declined, withdrawn and accepted, refusals that change nothing, chat, a game against
the server's computer, and the exports. python-chess checks every position the streams report.

Run by tests/server/api.rs (and, with the two clients on two nodes of a cluster, by
tests/server/cluster.rs): lichess_clients.py BOT_URL BOT_TOKEN BOT_NAME BOARD_URL BOARD_TOKEN
BOARD_NAME. Prints "ok" and exits 0 when every check holds."""

import queue
import sys
import threading
import time

import berserk
import chess
import requests

BOT_URL, BOT_TOKEN, BOT, BOARD_URL, BOARD_TOKEN, BOARD = sys.argv[1:7]
WAIT = 20


def client(url, token):
    return berserk.Client(session=berserk.TokenSession(token), base_url=url)


def follow(stream):
    """The items of a (blocking) berserk stream, on a queue fed by a thread of their own."""
    items = queue.Queue()

    def pump():
        try:
            for item in stream:
                items.put(item)
        except Exception as e:  # the stream ends when the test does
            items.put({"type": "streamError", "error": repr(e)})

    threading.Thread(target=pump, daemon=True).start()
    return items


def next_of(items, kind, test=lambda e: True):
    """The next item of type `kind` that passes `test`; others are skipped."""
    while True:
        item = items.get(timeout=WAIT)
        assert item.get("type") != "streamError", item
        if item.get("type") == kind and test(item):
            return item


def refused(call, status):
    try:
        call()
    except berserk.exceptions.ResponseError as e:
        assert e.status_code == status, (e.status_code, e)
        return e
    raise AssertionError(f"expected a refusal with {status}")


bot = client(BOT_URL, BOT_TOKEN)
board = client(BOARD_URL, BOARD_TOKEN)

# The bot's account becomes a bot account (it has no games yet), as lichess-bot asks.
bot.account.upgrade_to_bot()
assert bot.account.get()["title"] == "BOT"
assert board.account.get().get("title") is None
tested = requests.post(f"{BOARD_URL}/api/token/test", data=f"{BOT_TOKEN},nonsense").json()
assert tested[BOT_TOKEN]["userId"] == BOT.lower() and "bot:play" in tested[BOT_TOKEN]["scopes"].split(","), tested
assert tested["nonsense"] is None, tested

bot_events = follow(bot.bots.stream_incoming_events())
board_events = follow(board.board.stream_incoming_events())
# The bot is online while its event stream is open.
# (The stream's request is made by its thread: ask until the server has it.)
deadline = time.monotonic() + WAIT
while not any(u.get("online") for u in board.users.get_realtime_statuses(BOT)):
    assert time.monotonic() < deadline, "the bot never came online"
    time.sleep(0.05)
assert any(b["username"] == BOT for b in bot.bots.get_online_bots())

# Declined, with lichess's reason.
made = board.challenges.create(BOT, rated=False, clock_limit=300, clock_increment=3, color="white")
challenge = next_of(bot_events, "challenge", lambda e: e["challenge"]["id"] == made["id"])["challenge"]
assert challenge["challenger"]["name"] == BOARD and challenge["timeControl"]["show"] == "5+3", challenge
assert challenge["speed"] == "blitz" and challenge["finalColor"] == "white", challenge
bot.bots.decline_challenge(made["id"], reason="tooFast")
declined = next_of(board_events, "challengeDeclined")["challenge"]
assert declined["id"] == made["id"] and declined["declineReasonKey"] == "tooFast", declined
refused(lambda: bot.bots.accept_challenge(made["id"]), 404)

# Withdrawn by its challenger.
made = board.challenges.create(BOT, rated=False, clock_limit=300, clock_increment=3, color="white")
next_of(bot_events, "challenge", lambda e: e["challenge"]["id"] == made["id"])
assert [c["id"] for c in board.challenges.get_mine()["out"]] == [made["id"]]
refused(lambda: bot.challenges.cancel(made["id"]), 404)  # only the challenger may withdraw it
board.challenges.cancel(made["id"])
assert next_of(bot_events, "challengeCanceled")["challenge"]["id"] == made["id"]

# Bad fields are refused with lichess's 400 and change nothing.
refused(lambda: board.challenges.create(BOT, rated=False, clock_limit=-5), 400)
refused(lambda: board.challenges.create(BOT, rated=False, variant="crazyhouse"), 400)
refused(lambda: board.challenges.create("nobody-at-all", rated=False), 404)
assert board.challenges.get_mine() == {"in": [], "out": []}

# Accepted: the game starts on both streams.
made = board.challenges.create(BOT, rated=False, clock_limit=300, clock_increment=3, color="white")
next_of(bot_events, "challenge", lambda e: e["challenge"]["id"] == made["id"])
bot.bots.accept_challenge(made["id"])
game = next_of(bot_events, "gameStart")["game"]
assert game["color"] == "black" and game["opponent"]["username"] == BOARD, game
# As on lichess, the game takes the challenge's id (lichess-bot counts on it).
assert game["id"] == made["id"], (game["id"], made["id"])
assert next_of(board_events, "gameStart")["game"]["id"] == game["id"]
gid = game["id"]
assert [g["gameId"] for g in board.games.get_ongoing()] == [gid]

bot_game = follow(bot.bots.stream_game_state(gid))
board_game = follow(board.board.stream_game_state(gid))
full = next_of(bot_game, "gameFull")
assert full["white"]["name"] == BOARD and full["black"]["title"] == "BOT", full
assert full["clock"] == {"initial": 300000, "increment": 3000} and full["initialFen"] == "startpos", full
assert full["state"]["moves"] == "" and full["state"]["status"] == "started", full
next_of(board_game, "gameFull")

# Refusals leave the game as it was: not the bot's turn, a made-up move, the wrong API.
refused(lambda: bot.bots.make_move(gid, "e7e5"), 400)
refused(lambda: board.board.make_move(gid, "e2e5"), 400)
refused(lambda: board.bots.make_move(gid, "e2e4"), 403)  # its token has no bot:play
refused(lambda: bot.board.make_move(gid, "e2e4"), 403)

position = chess.Board()
moves = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
for ply, uci in enumerate(moves):
    player = board.board if ply % 2 == 0 else bot.bots
    player.make_move(gid, uci)
    position.push_uci(uci)
    for stream in (bot_game, board_game):
        state = next_of(stream, "gameState", lambda s: len(s["moves"].split()) == ply + 1)
        replayed = chess.Board()
        for move in state["moves"].split():
            assert chess.Move.from_uci(move) in replayed.legal_moves, (move, state)
            replayed.push_uci(move)
        assert replayed.fen() == position.fen(), state
    if ply == 1:
        bot.bots.post_message(gid, "good luck")
        line = next_of(board_game, "chatLine")
        assert line == {"type": "chatLine", "room": "player", "username": BOT, "text": "good luck"}, line
# The mate ends the game: its last state says how (the move's own state may come first).
final = next_of(board_game, "gameState", lambda s: s["status"] != "started")
assert final["status"] == "mate" and final["winner"] == "white", final
assert next_of(bot_events, "gameFinish")["game"]["status"]["name"] == "mate"
assert next_of(board_events, "gameFinish")["game"]["id"] == gid
refused(lambda: bot.bots.resign_game(gid), 400)

exported = requests.get(f"{BOARD_URL}/game/export/{gid}", headers={"Accept": "application/json"}).json()
assert exported["moves"] == "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#" and exported["winner"] == "white", exported
pgn = requests.get(f"{BOT_URL}/game/export/{gid}").text
assert "1-0" in pgn and "Qxf7#" in pgn, pgn
assert requests.get(f"{BOARD_URL}/api/games/user/{BOT}", headers={"Accept": "application/x-ndjson"}).text.count("\n") == 1

# A game against the server's computer: it answers the move, and the player resigns.
ai = board.challenges.create_ai(level=1, clock_limit=600, clock_increment=0, color="white")
assert ai["player"] == "white" and ai["source"] == "ai", ai
assert next_of(board_events, "gameStart")["game"]["opponent"]["ai"] == 5
ai_game = follow(board.board.stream_game_state(ai["id"]))
assert next_of(ai_game, "gameFull")["black"]["aiLevel"] == 5
board.board.make_move(ai["id"], "e2e4")
reply = next_of(ai_game, "gameState", lambda s: len(s["moves"].split()) == 2)
assert chess.Move.from_uci(reply["moves"].split()[1]) in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
board.board.resign_game(ai["id"])
assert next_of(ai_game, "gameState", lambda s: s["status"] != "started")["status"] == "resign"
assert next_of(board_events, "gameFinish")["game"]["id"] == ai["id"]

# Becoming a bot needs bot:play (and, tests/server/api.rs checks, an account with no games).
refused(lambda: board.account.upgrade_to_bot(), 403)
print("ok")
