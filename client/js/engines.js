// Engine seats in the web client (issue 16, "Any UCI engine as a seat"): the server's UCI
// engines (GET /api/engines, asked once a page load), the strength chooser of a seat (one
// setting and its value, or full strength), the lobby's "Play an engine" card (shown only when
// the server offers engines) and, for the board editor, a level chooser that offers the engines
// of a variant next to the levels. Kept apart from the level choosers so each changes alone.

import { getJson } from './api.js';
import { botSeat, seatsAgainst } from './create.js';

/** An engine seat: engine `name` with `options` (`{}` or `{"Skill Level": 3}`). */
export function engineSeat(name, options) {
  return { kind: 'engine', name, options };
}

/** The seats of a game against engine `name` with `options`, the creator on `side`. */
export function engineSeats(side, name, options) {
  return seatsAgainst(side, engineSeat(name, options));
}

let asked = null;

/** The server's engines, `[{name, variants, settings}]`; `[]` when it offers none or could not say. */
export function serverEngines() {
  asked ??= getJson('/api/engines').then(({ status, data }) => (status === 200 && Array.isArray(data) ? data : []));
  return asked;
}

const text = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The markup of a strength chooser: `#ID-setting`, and `#ID-value` in `#ID-value-label`. */
export function strengthFields(id) {
  return `<label>Strength <select id="${id}-setting"></select></label>
              <label id="${id}-value-label">Value <input id="${id}-value" type="number" step="1" inputmode="numeric"></label>`;
}

/**
 * The strength of an engine seat, chosen in the fields of `strengthFields(id)` under `root`:
 * full strength, or one of the engine's settings (the first offered first, Skill Level from its
 * weakest) with a value within its bounds. The server checks the value again.
 */
export class Strength {
  constructor(root, id) {
    this.setting = root.querySelector(`#${id}-setting`);
    this.value = root.querySelector(`#${id}-value`);
    this.valueLabel = root.querySelector(`#${id}-value-label`);
    this.engine = null;
    this.setting.addEventListener('change', () => this.settingChanged());
  }

  /** Offers `engine`'s settings. */
  show(engine) {
    this.engine = engine;
    this.setting.innerHTML = ['<option value="">Full strength</option>',
      ...engine.settings.map((s) => `<option value="${text(s.name)}">${text(s.name)} (${s.min}–${s.max})</option>`)].join('');
    if (engine.settings.length) this.setting.value = engine.settings[0].name;
    this.settingChanged();
  }

  settingChanged() {
    const setting = this.engine?.settings.find((s) => s.name === this.setting.value);
    this.valueLabel.hidden = !setting;
    if (setting) {
      this.value.min = setting.min;
      this.value.max = setting.max;
      this.value.value = setting.name === 'Skill Level' ? setting.min : setting.default;
    }
  }

  /** The seat's `options`: `{}` at full strength, else the setting and its value as typed. */
  options() {
    return this.setting.value ? { [this.setting.value]: Number(this.value.value) } : {};
  }
}

/** The card's markup: empty and hidden until the server's engines are known. */
export function engineCard(colorChoice) {
  return `<form class="card" id="engine-form" hidden>
              <h2>Play an engine</h2>
              <label>Engine <select name="engine" id="engine-name"></select></label>
              ${strengthFields('engine')}
              <p class="hint" id="engine-variants"></p>
              ${colorChoice}
              <button type="submit" class="primary" id="play-engine">Play</button>
            </form>`;
}

/**
 * Fills the card from `/api/engines` and calls `create(seats)` on submit. A server without
 * engines (or an older one) leaves the card hidden.
 */
export async function wireEngineCard(root, side, create) {
  const form = root.querySelector('#engine-form');
  if (!form) return;
  const engines = await serverEngines();
  if (engines.length === 0) return;
  const f = form.elements;
  const strength = new Strength(root, 'engine');
  f.engine.innerHTML = engines.map((e, i) => `<option value="${i}">${text(e.name)}</option>`).join('');
  const chosen = () => engines[Number(f.engine.value)] || engines[0];
  const engineChanged = () => {
    const engine = chosen();
    strength.show(engine);
    root.querySelector('#engine-variants').textContent = `Plays: ${engine.variants.join(', ')}`;
  };
  f.engine.addEventListener('change', engineChanged);
  engineChanged();
  form.hidden = false;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    create(engineSeats(side(form), chosen().name, strength.options()));
  });
}

const ENGINE_PREFIX = 'engine:';

/**
 * A level `<select>` (`#ID`) that also offers, after the levels, the server's engines that play
 * the variant given to `offer`, each with its strength chosen in the fields of
 * `strengthFields(ID)` inside `#ID-strength`, shown while an engine is chosen.
 */
export class ComputerChoice {
  constructor(root, id) {
    this.select = root.querySelector(`#${id}`);
    this.box = root.querySelector(`#${id}-strength`);
    this.strength = new Strength(root, id);
    this.engines = [];
    this.select.addEventListener('change', () => this.chosen());
    this.chosen();
  }

  /** Offers `engines` (those that play the game's variant); a choice no longer offered falls back to the default level. */
  offer(engines) {
    const names = engines.map((e) => e.name).join('\n');
    if (names === this.engines.map((e) => e.name).join('\n')) return;
    const before = this.select.value;
    this.engines = engines;
    this.select.querySelector('optgroup.engines')?.remove();
    if (engines.length) {
      const group = document.createElement('optgroup');
      group.className = 'engines';
      group.label = 'Engines';
      group.append(...engines.map((e) => new Option(e.name, ENGINE_PREFIX + e.name)));
      this.select.append(group);
    }
    const still = [...this.select.options].some((o) => o.value === before);
    this.select.value = still ? before : [...this.select.options].find((o) => o.defaultSelected)?.value ?? this.select.options[0].value;
    this.chosen();
  }

  /** The engine chosen, or undefined for a level. */
  engine() {
    const value = this.select.value;
    return value.startsWith(ENGINE_PREFIX) ? this.engines.find((e) => ENGINE_PREFIX + e.name === value) : undefined;
  }

  chosen() {
    const engine = this.engine();
    this.box.hidden = !engine;
    if (engine && engine !== this.strength.engine) this.strength.show(engine);
  }

  /** The seat chosen: a bot of the level, or the engine at the chosen strength. */
  seat() {
    const engine = this.engine();
    return engine ? engineSeat(engine.name, this.strength.options()) : botSeat(this.select.value);
  }
}
