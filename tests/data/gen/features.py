"""Rule-feature detection for standard-chess positions (python-chess)."""

import chess


def castling_features(b):
    f = set()
    c = b.turn
    back = chess.BB_RANK_1 if c == chess.WHITE else chess.BB_RANK_8
    rights = b.castling_rights & back
    if not rights:
        return f
    f.add("castle_rights")
    king = b.king(c)
    legal = set(b.legal_moves)
    for rook in chess.scan_forward(rights):
        kingside = chess.square_file(rook) > chess.square_file(king)
        target = chess.square(6 if kingside else 2, chess.square_rank(king))
        if chess.between(king, rook) & b.occupied:
            f.add("castle_path_occupied")
            continue
        mv = chess.Move(king, target)
        if mv in legal:
            f.add("castle_legal")
            if not kingside:
                f.add("castle_long_legal")
                b_sq = chess.square(1, chess.square_rank(king))
                if b.is_attacked_by(not c, b_sq):
                    f.add("castle_long_b_attacked")
            if b.is_attacked_by(not c, rook):
                f.add("castle_rook_attacked")
        elif b.is_check():
            f.add("castle_in_check")
        else:
            f.add("castle_transit_attacked")
    return f


def ep_features(b):
    f = set()
    if b.ep_square is None or not b.has_pseudo_legal_en_passant():
        return f
    f.add("ep_field")
    king = b.king(b.turn)
    for mv in b.generate_pseudo_legal_ep():
        if b.is_legal(mv):
            f.add("ep_legal")
            if b.is_check():
                f.add("ep_evasion")
        else:
            if b.is_check():
                f.add("ep_illegal_in_check")
            elif chess.square_rank(king) == chess.square_rank(mv.from_square):
                f.add("ep_pin_rank")
            else:
                f.add("ep_pin_other")
    return f


def features(b):
    f = set()
    legal = list(b.legal_moves)
    if not legal:
        f.add("no_moves")
        return f
    if b.is_check():
        f.add("check")
        if len(b.checkers()) >= 2:
            f.add("double_check")
    f |= castling_features(b)
    f |= ep_features(b)
    for m in legal:
        if m.promotion:
            f.add("promo")
            if m.promotion != chess.QUEEN:
                f.add("underpromo")
            if b.is_capture(m):
                f.add("promo_capture")
            if b.gives_check(m):
                f.add("promo_check")
    us = b.occupied_co[b.turn]
    for sq in chess.scan_forward(us):
        if b.piece_type_at(sq) != chess.KING and b.is_pinned(b.turn, sq):
            f.add("pinned")
            break
    n = chess.popcount(b.occupied)
    if n <= 7:
        f.add("endgame")
    elif n <= 12:
        f.add("fewish")
    elif n >= 28:
        f.add("many")
    return f
