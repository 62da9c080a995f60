// The top bar's preferences, on every page: a mute button (aria-pressed: pressed is muted) and
// a settings button opening a small panel with the volume, your-move notifications and blind
// mode. Every control writes a setting (settings.js) and redraws from the settings, so a change
// made in another tab shows here too. The browser is asked for permission to notify only when
// the person clicks the notifications button, never by itself.

import { playSound } from './sound.js';
import { onSetting, setSetting, setting } from './settings.js';
import { dropdown, pick } from './ui.js';

const SPEAKER = `<svg viewBox="0 0 24 24" aria-hidden="true" class="prefs-icon"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>
  <path class="waves" d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>
  <path class="cross" d="M16 9l6 6M22 9l-6 6" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`;
const SLIDERS = `<svg viewBox="0 0 24 24" aria-hidden="true" class="prefs-icon"><path d="M4 6h16M4 12h16M4 18h16" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>
  <circle cx="9" cy="6" r="2.3" fill="currentColor"/><circle cx="15" cy="12" r="2.3" fill="currentColor"/><circle cx="7" cy="18" r="2.3" fill="currentColor"/></svg>`;

/** What the notifications button says about the browser's permission and the setting. */
export function notifyState(permission, enabled) {
  if (permission === 'unsupported') return { pressed: false, disabled: true, hint: 'This browser cannot show notifications.' };
  if (permission === 'denied') return { pressed: false, disabled: true, hint: 'Notifications are blocked for this site in the browser’s settings.' };
  if (permission === 'granted' && enabled) return { pressed: true, disabled: false, hint: 'On: a notification when it is your move and this tab is hidden.' };
  return { pressed: false, disabled: false, hint: 'Off: press to be notified when it is your move and this tab is hidden.' };
}

function permission() {
  return typeof Notification === 'function' ? Notification.permission : 'unsupported';
}

class PrefsMenu {
  constructor(slot) {
    slot.innerHTML = `
      <button type="button" id="sound-toggle" class="prefs-button" aria-pressed="false" aria-label="Mute sounds" title="Mute sounds">${SPEAKER}</button>
      <button type="button" id="prefs-toggle" class="prefs-button" aria-expanded="false" aria-controls="prefs-panel" aria-label="Sound and accessibility settings" title="Settings">${SLIDERS}</button>
      <section id="prefs-panel" class="prefs-panel" hidden aria-labelledby="prefs-title">
        <h2 id="prefs-title">Settings</h2>
        <label class="prefs-row" for="sound-volume">Volume <input type="range" id="sound-volume" min="0" max="100" step="5" aria-valuetext=""></label>
        <div class="prefs-row">
          <button type="button" id="notify-toggle" aria-pressed="false" aria-describedby="notify-hint">Your-move notifications</button>
          <p id="notify-hint" class="hint"></p>
        </div>
        <label class="prefs-row prefs-check" for="blind-mode"><input type="checkbox" id="blind-mode" aria-describedby="blind-hint"> Blind mode</label>
        <p id="blind-hint" class="hint">The game page shows a text interface made for screen readers instead of the board.</p>
      </section>`;
    slot.hidden = false;
    this.dom = pick(slot, {
      mute: '#sound-toggle', toggle: '#prefs-toggle', panel: '#prefs-panel', volume: '#sound-volume',
      notify: '#notify-toggle', notifyHint: '#notify-hint', blind: '#blind-mode',
    });
    const d = this.dom;
    d.mute.addEventListener('click', () => setSetting('muted', !setting('muted')));
    this.setOpen = dropdown(slot, d.toggle, d.panel);
    d.volume.addEventListener('input', () => {
      setSetting('volume', Number(d.volume.value) / 100);
      if (setting('muted') && Number(d.volume.value) > 0) setSetting('muted', false);
    });
    // A sample at the chosen loudness once the slider is let go (not at every step of a drag).
    d.volume.addEventListener('change', () => playSound('move'));
    d.notify.addEventListener('click', () => this.toggleNotify());
    d.blind.addEventListener('change', () => setSetting('blind', d.blind.checked));
    for (const name of ['volume', 'muted', 'notify', 'blind']) onSetting(name, () => this.render());
    this.render();
  }

  async toggleNotify() {
    if (permission() === 'default') {
      // Asked only here, on the person's click.
      try {
        await Notification.requestPermission();
      } catch { /* an older browser's callback form: the state below says what came of it */ }
      setSetting('notify', permission() === 'granted');
    } else if (permission() === 'granted') {
      setSetting('notify', !setting('notify'));
    }
    this.render();
  }

  render() {
    const d = this.dom;
    const muted = setting('muted');
    const volume = Math.round(setting('volume') * 100);
    d.mute.setAttribute('aria-pressed', String(muted));
    d.mute.classList.toggle('muted', muted || volume === 0);
    if (document.activeElement !== d.volume) d.volume.value = String(volume);
    d.volume.setAttribute('aria-valuetext', muted ? `${volume} percent, muted` : `${volume} percent`);
    const state = notifyState(permission(), setting('notify'));
    d.notify.setAttribute('aria-pressed', String(state.pressed));
    d.notify.disabled = state.disabled;
    d.notifyHint.textContent = state.hint;
    d.blind.checked = setting('blind');
    document.documentElement.dataset.muted = String(muted);
  }
}

/** Puts the preferences into the top bar (`#prefs-menu`). */
export function installPrefsMenu() {
  const slot = document.getElementById('prefs-menu');
  return slot ? new PrefsMenu(slot) : null;
}
