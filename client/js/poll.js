// Asking the server again and again while a page is in view (the tournament pages, the lobby's
// Your games and Friends): `load()` every `everyMs` after the last answer (never two at once;
// one asked for meanwhile comes right after), nothing while the page is hidden, once at once
// when it shows again, and no more once `load()` says there is nothing more to follow. The timers and the document come in from outside, so Node's test runner
// drives it with fakes (tests/js/tournament.test.mjs).

export class Poller {
  /**
   * `load()` returns a promise of true when there is nothing more to follow (or throws: the
   * next turn asks again). `doc` has `visibilityState` and `addEventListener`; `timers` has
   * `setTimeout` and `clearTimeout`.
   */
  constructor(load, { everyMs = 2000, doc = globalThis.document, timers = globalThis } = {}) {
    this.load = load;
    this.everyMs = everyMs;
    this.doc = doc;
    this.timers = timers;
    this.timer = null;
    this.busy = false;
    this.done = false;
    this.again = false; // asked for while a request was on its way: one more when it comes back
    this.onVisible = () => {
      if (this.visible()) this.now();
    };
    doc?.addEventListener?.('visibilitychange', this.onVisible);
  }

  visible() {
    return !this.doc || this.doc.visibilityState !== 'hidden';
  }

  /** Asks now (one request at a time), then goes on asking. */
  async now() {
    if (this.done) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.clear();
    this.busy = true;
    let over = false;
    try {
      over = (await this.load()) === true;
    } catch (e) {
      console.error('asking the server failed', e);
    }
    this.busy = false;
    if (over) {
      this.stop();
      return;
    }
    if (this.done) return;
    if (this.again) {
      this.again = false;
      this.now();
      return;
    }
    this.schedule();
  }

  schedule() {
    this.clear();
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      // Hidden: no request, and no timer either; showing again asks at once.
      if (this.visible()) this.now();
    }, this.everyMs);
  }

  clear() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /** No more requests. */
  stop() {
    this.done = true;
    this.clear();
    this.doc?.removeEventListener?.('visibilitychange', this.onVisible);
  }
}
