"""Chess960 through gambit's lichess-compatible API, driven by berserk as it drives lichess:
an AI challenge with the `chess960` variant key (a random start, then start 272 given as
`fen`), the game streamed and played on a python-chess board in Chess960 mode, castling sent
the way lichess programs send it (the king taking its own rook), and the export.

Run by tests/server/chess960.rs: chess960_client.py URL TOKEN. Prints "ok" and exits 0 when
every check holds."""

import sys

import berserk
import chess

URL, TOKEN = sys.argv[1:3]
START = "bbnrknrq/pppppppp/8/8/8/8/PPPPPPPP/BBNRKNRQ w KQkq - 0 1"

api = berserk.Client(session=berserk.TokenSession(TOKEN), base_url=URL)

# Without a position, a random one of the 960 starts.
game = api.challenges.create_ai(level=1, color="white", variant="chess960")
assert game["variant"]["key"] == "chess960" and game["perf"] == "chess960", game
start = chess.Board(game["fen"], chess960=True)
assert start.is_valid() and start.chess960_pos() is not None, game["fen"]
api.board.resign_game(game["id"])

# From start 272: clear the knights away, then O-O as the king taking its rook on g1.
game = api.challenges.create_ai(level=1, color="white", variant="chess960", position=START)
stream = api.board.stream_game_state(game["id"])
full = next(stream)
assert full["type"] == "gameFull", full
assert full["variant"]["key"] == "chess960" and full["initialFen"] == START, full
moves = full["state"]["moves"].split()
for mine in ["f1g3", "c1d3", "e1g1"]:
    while len(moves) % 2:  # the computer to move: wait for its answer
        state = next(stream)
        if state.get("type") == "gameState":
            moves = state["moves"].split()
    api.board.make_move(game["id"], mine)
    while len(moves) % 2 == 0:
        state = next(stream)
        if state.get("type") == "gameState":
            moves = state["moves"].split()
    board = chess.Board(START, chess960=True)
    for uci in moves:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (uci, board.fen())
        board.push(move)
board = chess.Board(START, chess960=True)
for uci in moves[:4]:
    board.push_uci(uci)
assert moves[4] == "e1g1" and board.is_castling(chess.Move.from_uci("e1g1")), moves
board.push_uci("e1g1")
assert board.king(chess.WHITE) == chess.G1 and board.piece_at(chess.F1) == chess.Piece(chess.ROOK, chess.WHITE), board.fen()

exported = api.games.export(game["id"])
assert exported["variant"] == "chess960", exported
assert exported["moves"].split()[4] == "O-O", exported["moves"]
api.board.resign_game(game["id"])
print("ok")
