// How a game ended, in words for people — the same wording as the server's
// `chess::Outcome::headline` (the terminal and the text log): both are checked against
// tests/data/protocol/outcomes.json.

const DESCRIPTIONS = {
  checkmate: 'checkmate',
  stalemate: 'stalemate',
  out_of_moves: 'out of valid moves',
  no_moves: 'no moves at all',
  threefold_repetition: 'threefold repetition',
  eight_move_repetition: 'eight-move repetition',
  fifty_moves: 'fifty-move rule',
  insufficient_material: 'insufficient material',
  resignation: 'resignation',
  agreement: 'agreement',
  timeout: 'time forfeit',
  adjudication: 'adjudication',
  rules_infraction: 'rules infraction',
  abandoned: 'abandonment',
  aborted: 'abort',
};

const DRAWS = {
  stalemate: 'Stalemate — draw',
  agreement: 'Draw agreed',
  threefold_repetition: 'Draw by threefold repetition',
  eight_move_repetition: 'Draw by eight-move repetition',
  fifty_moves: 'Draw by the fifty-move rule',
  insufficient_material: 'Draw by insufficient material',
  no_moves: 'No moves at all — draw',
  timeout: 'Draw — time ran out but the other side cannot mate',
};

/** "Checkmate — Black wins", "White resigned — Black wins", "Draw by threefold repetition". */
export function headline(result, reason) {
  const described = DESCRIPTIONS[reason] || String(reason || '').replaceAll('_', ' ');
  if (result === '*') return 'Game aborted';
  if (result !== '1-0' && result !== '0-1') return DRAWS[reason] || `Draw by ${described}`;
  const [winner, loser] = result === '1-0' ? ['White', 'Black'] : ['Black', 'White'];
  switch (reason) {
    case 'checkmate': return `Checkmate — ${winner} wins`;
    case 'resignation': return `${loser} resigned — ${winner} wins`;
    case 'out_of_moves': return `${loser} is out of valid moves — ${winner} wins`;
    case 'timeout': return `${loser} ran out of time — ${winner} wins`;
    case 'abandoned': return `${loser} left the game — ${winner} wins`;
    case 'rules_infraction': return `Rules infraction by ${loser} — ${winner} wins`;
    default: return `${winner} wins by ${described}`;
  }
}
