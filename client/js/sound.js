// The page's sounds, made on the spot with the Web Audio API: no audio files to fetch, and each
// sound is a few oscillators (and, for a capture, a burst of noise) shaped by gain envelopes.
// One AudioContext for the page, created lazily: browsers let a page start audio only after the
// person interacted with it, so it is created (or resumed) on the first pointerdown or keydown
// (armSound). A tab that was unlocked once remembers it for its later pages (sessionStorage):
// Chromium lets a page play after a same-origin navigation from a page the person used, which
// is how a game opened by an accepted challenge can greet the player with a sound.
//
// Volume and mute are settings (settings.js), so every tab follows a change made in any of them.

import { onSetting, setting } from './settings.js';

/** The sounds there are. */
export const SOUNDS = ['move', 'capture', 'check', 'castle', 'start', 'end', 'lowTime', 'accepted'];

const UNLOCKED_KEY = 'gambit:audio-unlocked';
const ARRIVAL_KEY = 'gambit:arrival-sound';
/** A sound that could not start within this long (the context was not allowed to run) is dropped, not played late. */
const STALE_MS = 400;

let ctx = null;
let master = null;
let noiseBuffer = null;
let armed = false;

/** The gain for a volume setting (0–1): squared, as loudness is heard roughly logarithmically. */
export function gainFor(volume, muted) {
  return muted ? 0 : Math.max(0, Math.min(1, volume)) ** 2;
}

function storageFlag(key, value) {
  try {
    if (value === undefined) return sessionStorage.getItem(key);
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch { /* unavailable: the flag lasts not even the page */ }
  return null;
}

/** The context, creating it if allowed to (`create`): null without Web Audio. */
function context(create) {
  if (ctx || !create) return ctx;
  const Ctor = window.AudioContext || window.webkitAudioContext;
  if (!Ctor) return null;
  try {
    ctx = new Ctor();
  } catch {
    return null;
  }
  master = ctx.createGain();
  master.gain.value = gainFor(setting('volume'), setting('muted'));
  master.connect(ctx.destination);
  return ctx;
}

function applyVolume() {
  if (master) master.gain.setTargetAtTime(gainFor(setting('volume'), setting('muted')), ctx.currentTime, 0.01);
}

/**
 * Listens for the person's first gestures, which let the page start audio; follows the volume
 * and mute settings. Call once per page (main.js).
 */
export function armSound() {
  if (armed || typeof window === 'undefined') return;
  armed = true;
  const unlock = () => {
    storageFlag(UNLOCKED_KEY, '1');
    if (setting('muted')) return; // unmuting is a click: the context comes then
    const c = context(true);
    if (c && c.state === 'suspended') c.resume().catch(() => {});
  };
  // Capture phase: a handler that stops propagation must not keep audio locked.
  window.addEventListener('pointerdown', unlock, true);
  window.addEventListener('keydown', unlock, true);
  onSetting('volume', applyVolume);
  onSetting('muted', applyVolume);
}

/** Plays sound `name` (one of SOUNDS) unless muted; does nothing before audio may start. */
export function playSound(name) {
  if (!SOUNDS.includes(name) || setting('muted') || setting('volume') <= 0) return;
  const c = context(storageFlag(UNLOCKED_KEY) === '1');
  if (!c) return;
  if (c.state === 'running') {
    render(c, name);
    return;
  }
  const asked = performance.now();
  c.resume().then(() => {
    if (performance.now() - asked < STALE_MS) render(c, name);
  }, () => {});
}

/** The game `id` that this tab opens next was started by an accepted seek or challenge: its page greets it. */
export function arrivalSound(id) {
  storageFlag(ARRIVAL_KEY, String(id));
}

/** True (once) when the page of game `id` was opened by an accepted seek or challenge. */
export function takeArrivalSound(id) {
  if (storageFlag(ARRIVAL_KEY) !== String(id)) return false;
  storageFlag(ARRIVAL_KEY, null);
  return true;
}

/** One tone: `freq` Hz (gliding to `to`), starting `at` s from now, `dur` s long, peak `gain`. */
function tone(c, { freq, to = freq, type = 'sine', at = 0, dur = 0.1, gain = 0.5 }) {
  const t0 = c.currentTime + at;
  const osc = c.createOscillator();
  const env = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (to !== freq) osc.frequency.exponentialRampToValueAtTime(to, t0 + dur);
  // A 5 ms attack avoids a click; an exponential fall sounds like a struck thing dying away.
  env.gain.setValueAtTime(0.0001, t0);
  env.gain.exponentialRampToValueAtTime(gain, t0 + 0.005);
  env.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(env).connect(master);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

/** A burst of filtered noise: the crunch of a capture. */
function noise(c, { at = 0, dur = 0.08, gain = 0.4, freq = 1800 }) {
  if (!noiseBuffer) {
    noiseBuffer = c.createBuffer(1, Math.ceil(c.sampleRate * 0.2), c.sampleRate);
    const data = noiseBuffer.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
  }
  const t0 = c.currentTime + at;
  const src = c.createBufferSource();
  src.buffer = noiseBuffer;
  const filter = c.createBiquadFilter();
  filter.type = 'bandpass';
  filter.frequency.value = freq;
  const env = c.createGain();
  env.gain.setValueAtTime(gain, t0);
  env.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  src.connect(filter).connect(env).connect(master);
  src.start(t0);
  src.stop(t0 + dur + 0.02);
}

/** Each sound's recipe. Short (under half a second) so quick moves do not pile up. */
const RECIPES = {
  // A wooden tock: a low triangle falling in pitch.
  move: (c) => tone(c, { freq: 420, to: 180, type: 'triangle', dur: 0.09, gain: 0.7 }),
  // Heavier and crunchier than a move: a deeper thump under noise.
  capture: (c) => {
    tone(c, { freq: 260, to: 90, type: 'triangle', dur: 0.14, gain: 0.8 });
    noise(c, { dur: 0.09, gain: 0.35 });
  },
  // Two quick high notes, a warning.
  check: (c) => {
    tone(c, { freq: 880, type: 'square', dur: 0.07, gain: 0.18 });
    tone(c, { freq: 1175, type: 'square', at: 0.08, dur: 0.09, gain: 0.18 });
  },
  // Two pieces move: two tocks, the second lower.
  castle: (c) => {
    tone(c, { freq: 440, to: 190, type: 'triangle', dur: 0.08, gain: 0.7 });
    tone(c, { freq: 360, to: 150, type: 'triangle', at: 0.1, dur: 0.09, gain: 0.7 });
  },
  // A rising major arpeggio.
  start: (c) => [523, 659, 784].forEach((freq, i) => tone(c, { freq, at: i * 0.08, dur: 0.16, gain: 0.35 })),
  // A falling one, slower.
  end: (c) => [784, 659, 523, 392].forEach((freq, i) => tone(c, { freq, type: 'triangle', at: i * 0.1, dur: 0.22, gain: 0.4 })),
  // Three short, soft pips: hurry.
  lowTime: (c) => [0, 0.12, 0.24].forEach((at) => tone(c, { freq: 1320, type: 'sine', at, dur: 0.06, gain: 0.3 })),
  // A bright chime: someone took up the challenge.
  accepted: (c) => {
    tone(c, { freq: 660, dur: 0.25, gain: 0.35 });
    tone(c, { freq: 990, at: 0.09, dur: 0.35, gain: 0.3 });
  },
};

function render(c, name) {
  try {
    RECIPES[name](c);
  } catch (e) {
    console.warn('sound failed', name, e); // a sound is never worth breaking the page for
  }
}
