// The forms that make a tournament, on `/tournaments` for a logged-in player: a new arena
// (`POST /api/tournament`: clock, duration, minutes until it starts, variant, rated, berserk,
// streaks, computer players, an optional password) and a new round robin
// (`POST /api/roundrobin`: a clock or days per move, variant, rated, password). The server's
// answer is the new tournament: the page goes to it. A refusal's words show beside the form.

import { pick } from '../ui.js';
import { refusalText } from './common.js';
import { postForm } from './http.js';
import {
  ARENA_DEFAULTS, arenaFields, CLOCK_INCREMENTS, CLOCK_TIMES, DURATIONS, durationName, minutesName, ROUND_ROBIN_TIMES,
  roundRobinFields, tournamentPath, WAIT_MINUTES,
} from './list.js';
import { mayBeRated, timeControlKind, VARIANTS } from '../challenges.js';

const options = (values, selected, label = String) => values.map((v) => `<option value="${v}"${v === selected ? ' selected' : ''}>${label(v)}</option>`).join('');
const variantOptions = () => Object.entries(VARIANTS).map(([key, label]) => `<option value="${key}">${label}</option>`).join('');

/** The round robin form's time controls, grouped as the challenge form groups them. */
function timeOptions() {
  const option = ([value, label]) => `<option value="${value}"${value === '5+3' ? ' selected' : ''}>${label}</option>`;
  const of = (kind) => ROUND_ROBIN_TIMES.filter(([value]) => timeControlKind(value) === kind).map(option).join('');
  return `<optgroup label="Real time">${of('clock')}</optgroup><optgroup label="Correspondence">${of('days')}</optgroup>${of('untimed')}`;
}

/** Draws both forms into `host` and makes them work. */
export function installCreateForms(host) {
  host.innerHTML = `
    <form class="card tournament-form" id="arena-form" aria-labelledby="arena-form-title">
      <h2 id="arena-form-title">New arena</h2>
      <p>Everyone plays as many games as the time allows, paired again as soon as a game ends; the most points win.</p>
      <label>Name <input id="arena-form-name" name="name" autocomplete="off" minlength="2" maxlength="40" placeholder="your name if left empty"></label>
      <label>Clock (minutes) <select id="arena-form-clock" name="clockTime">${options(CLOCK_TIMES, ARENA_DEFAULTS.clockTime, minutesName)}</select></label>
      <label>Increment (seconds) <select id="arena-form-increment" name="clockIncrement">${options(CLOCK_INCREMENTS, ARENA_DEFAULTS.clockIncrement)}</select></label>
      <label>Duration <select id="arena-form-minutes" name="minutes">${options(DURATIONS, ARENA_DEFAULTS.minutes, durationName)}</select></label>
      <label>Starts in <select id="arena-form-wait" name="waitMinutes">${options(WAIT_MINUTES, ARENA_DEFAULTS.waitMinutes, (m) => `${m} min`)}</select></label>
      <label>Variant <select id="arena-form-variant" name="variant">${variantOptions()}</select></label>
      <label class="check"><input type="checkbox" id="arena-form-rated" name="rated" checked> Rated</label>
      <label class="check"><input type="checkbox" id="arena-form-berserk" name="berserkable" checked> Berserk allowed <span class="hint">(halve your clock for an extra point on a win)</span></label>
      <label class="check"><input type="checkbox" id="arena-form-streaks" name="streakable" checked> Streaks <span class="hint">(after two wins, wins count double)</span></label>
      <label class="check"><input type="checkbox" id="arena-form-bots" name="bots"> Computer players may take part</label>
      <label>Password <input id="arena-form-password" name="password" type="password" autocomplete="new-password" placeholder="optional: for a private arena"></label>
      <p id="arena-form-error" class="error" role="alert"></p>
      <button type="submit" class="primary" id="arena-form-create">Create the arena</button>
    </form>
    <form class="card tournament-form" id="rr-form" aria-labelledby="rr-form-title">
      <h2 id="rr-form-title">New round robin</h2>
      <p>Everyone plays everyone once, a round at a time; you start it when all are in.</p>
      <label>Name <input id="rr-form-name" name="name" autocomplete="off" required minlength="2" maxlength="40" placeholder="Club night"></label>
      <label>Time control <select id="rr-form-time" name="time">${timeOptions()}</select></label>
      <label>Variant <select id="rr-form-variant" name="variant">${variantOptions()}</select></label>
      <label class="check rated-choice"><span><input type="checkbox" id="rr-form-rated" name="rated"> Rated</span>
        <span class="hint" id="rr-form-rated-hint" hidden>an untimed game is never rated</span></label>
      <label>Password <input id="rr-form-password" name="password" type="password" autocomplete="new-password" placeholder="optional: for a private one"></label>
      <p id="rr-form-error" class="error" role="alert"></p>
      <button type="submit" class="primary" id="rr-form-create">Create the round robin</button>
    </form>`;
  const d = pick(host, {
    arena: '#arena-form', arenaError: '#arena-form-error', arenaCreate: '#arena-form-create',
    rr: '#rr-form', rrTime: '#rr-form-time', rrRated: '#rr-form-rated', rrRatedHint: '#rr-form-rated-hint', rrError: '#rr-form-error', rrCreate: '#rr-form-create',
  });
  const syncRated = () => {
    const timed = mayBeRated(d.rrTime.value);
    d.rrRated.disabled = !timed;
    if (!timed) d.rrRated.checked = false;
    d.rrRatedHint.hidden = timed;
  };
  d.rrTime.addEventListener('change', syncRated);
  syncRated();
  d.arena.addEventListener('submit', (e) => {
    e.preventDefault();
    const f = d.arena.elements;
    const fields = arenaFields({
      name: f.name.value, clockTime: f.clockTime.value, clockIncrement: f.clockIncrement.value, minutes: f.minutes.value,
      waitMinutes: f.waitMinutes.value, variant: f.variant.value, rated: f.rated.checked, berserkable: f.berserkable.checked,
      streakable: f.streakable.checked, bots: f.bots.checked, password: f.password.value,
    });
    create('/api/tournament', fields, 'arena', d.arenaCreate, d.arenaError);
  });
  d.rr.addEventListener('submit', (e) => {
    e.preventDefault();
    const f = d.rr.elements;
    const fields = roundRobinFields({ name: f.name.value, time: f.time.value, variant: f.variant.value, rated: f.rated.checked, password: f.password.value });
    create('/api/roundrobin', fields, 'roundrobin', d.rrCreate, d.rrError);
  });
}

/** Sends a create form; on success goes to the new tournament's page. */
async function create(path, fields, kind, button, error) {
  if (button.disabled) return;
  button.disabled = true;
  error.textContent = '';
  const answer = await postForm(path, fields);
  const id = answer.data?.id;
  if (answer.status === 200 && typeof id === 'string' && id) {
    location.assign(tournamentPath(kind, id));
    return;
  }
  button.disabled = false;
  error.textContent = answer.status === 200 ? 'The server made the tournament but did not say where it is: find it in the list.' : refusalText(answer);
}
