// Engine seats in the lobby (issue 16, "Any UCI engine as a seat"): the "Play an engine" card,
// shown only when the server offers UCI engines (GET /api/engines), with the engine, one
// strength setting and its value. Kept apart from the level choosers so each changes alone.

/** The seats of a game against engine `name` with `options` (`{}` or `{"Skill Level": 3}`), the creator on `side`. */
export function engineSeats(side, name, options) {
  const engine = { kind: 'engine', name, options };
  return { white: side === 'white' ? { kind: 'human' } : engine, black: side === 'black' ? { kind: 'human' } : engine, as: side };
}

/** The card's markup: empty and hidden until the server's engines are known. */
export function engineCard(colorChoice) {
  return `<form class="card" id="engine-form" hidden>
              <h2>Play an engine</h2>
              <label>Engine <select name="engine" id="engine-name"></select></label>
              <label>Strength <select name="setting" id="engine-setting"></select></label>
              <label id="engine-value-label">Value <input name="value" id="engine-value" type="number" step="1" inputmode="numeric"></label>
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
  let engines = [];
  try {
    const answer = await fetch('/api/engines');
    if (answer.ok) engines = await answer.json();
  } catch {
    return;
  }
  if (!Array.isArray(engines) || engines.length === 0) return;
  const f = form.elements;
  const text = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  f.engine.innerHTML = engines.map((e, i) => `<option value="${i}">${text(e.name)}</option>`).join('');
  const chosen = () => engines[Number(f.engine.value)] || engines[0];
  const settingChanged = () => {
    const setting = chosen().settings.find((s) => s.name === f.setting.value);
    root.querySelector('#engine-value-label').hidden = !setting;
    if (setting) {
      f.value.min = setting.min;
      f.value.max = setting.max;
      f.value.value = setting.name === 'Skill Level' ? setting.min : setting.default;
    }
  };
  const engineChanged = () => {
    const engine = chosen();
    f.setting.innerHTML = ['<option value="">Full strength</option>',
      ...engine.settings.map((s) => `<option value="${text(s.name)}">${text(s.name)} (${s.min}–${s.max})</option>`)].join('');
    if (engine.settings.length) f.setting.value = engine.settings[0].name;
    root.querySelector('#engine-variants').textContent = `Plays: ${engine.variants.join(', ')}`;
    settingChanged();
  };
  f.engine.addEventListener('change', engineChanged);
  f.setting.addEventListener('change', settingChanged);
  engineChanged();
  form.hidden = false;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const options = f.setting.value ? { [f.setting.value]: Number(f.value.value) } : {};
    create(engineSeats(side(form), chosen().name, options));
  });
}
