// The top bar's bell, on every page while logged in: a button with the number of unread
// notifications (a challenge, a friend's game starting, a correspondence move, a tournament)
// and its panel, newest first. Loaded from `GET /api/notifications` when the page opens and
// each time the event stream (re)opens; each `notification` event on the stream goes first at
// once, with a sound. Opening an item marks it read and goes where it leads; "Mark all read"
// marks the lot. The model is notifications.js.

import { errorText, getJson, postJson } from './api.js';
import { onEvent } from './events.js';
import { bellLabel, countText, NotificationList, notificationHtml } from './notifications.js';
import { playSound } from './sound.js';
import { dropdown, pick, setHtml } from './ui.js';

const BELL = `<svg viewBox="0 0 24 24" aria-hidden="true" class="notifications-icon"><path d="M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/>
  <path d="M10 20.5a2.2 2.2 0 0 0 4 0" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`;

/** How long going to a notification's page waits for the server to hear it was read. */
const READ_WAIT_MS = 1500;

class NotificationBar {
  constructor(slot) {
    this.list = new NotificationList();
    this.loading = null;
    slot.innerHTML = `
      <button type="button" id="notifications-toggle" class="notifications-toggle" aria-haspopup="true" aria-expanded="false" aria-controls="notifications-panel" aria-label="Notifications" title="Notifications">
        ${BELL}<span id="notifications-count" class="notifications-count" aria-hidden="true" hidden></span>
      </button>
      <div id="notifications-panel" class="notifications-panel" role="region" aria-labelledby="notifications-title" hidden>
        <div class="notifications-head">
          <h2 id="notifications-title">Notifications</h2>
          <button type="button" id="notifications-read-all" class="link">Mark all read</button>
        </div>
        <ul id="notifications-list" class="notifications-list"></ul>
        <p id="notifications-none" class="hint">No notifications yet.</p>
        <p id="notifications-error" class="error" role="alert"></p>
      </div>
      <p id="notifications-news" class="visually-hidden" role="status" aria-live="polite"></p>`;
    slot.hidden = false;
    this.dom = pick(slot, {
      toggle: '#notifications-toggle', count: '#notifications-count', panel: '#notifications-panel', list: '#notifications-list',
      none: '#notifications-none', readAll: '#notifications-read-all', error: '#notifications-error', news: '#notifications-news',
    });
    const d = this.dom;
    this.setOpen = dropdown(slot, d.toggle, d.panel);
    // Opened: the times ("5 min ago") are brought up to date.
    d.toggle.addEventListener('click', () => {
      if (!d.panel.hidden) this.render();
    });
    d.list.addEventListener('click', (e) => this.clicked(e));
    d.readAll.addEventListener('click', () => this.readAll());
    onEvent((event, from) => this.event(event, from));
    this.render();
    this.load();
  }

  /**
   * `GET /api/notifications`; one request at a time. Asked while one is on its way, it asks
   * again once that one is in when `fresh` (the stream just opened: the answer on its way may
   * predate what the stream will not repeat), else it joins it.
   */
  async load(fresh = false) {
    if (this.loading) {
      this.again ||= fresh;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        const answer = await getJson('/api/notifications');
        if (answer.status === 200 && answer.data) {
          this.list.load(answer.data);
          this.dom.toggle.dataset.loaded = 'true'; // for the curious and the browser tests
          this.render();
        }
      } while (this.again);
      this.loading = null;
    })();
    return this.loading;
  }

  /** An event from the stream; `from.here` when this tab read it from the stream itself (the one that plays the sound). */
  event(event, from = {}) {
    if (event.type === 'streamOpen') {
      this.load(from.here === true);
      return;
    }
    if (event.type !== 'notification') return;
    if (!this.list.add(event.notification)) {
      this.render();
      return;
    }
    const n = this.list.items.find((m) => m.id === event.notification.id);
    if (n && !n.read) {
      this.dom.news.textContent = n.text;
      if (from.here) playSound('accepted'); // once, in the tab that reads the stream
    }
    this.render();
  }

  render() {
    const d = this.dom;
    const now = Date.now();
    setHtml(d.list, this.list.items.map((n) => notificationHtml(n, now)).join(''));
    d.none.hidden = this.list.items.length > 0;
    this.renderCount();
  }

  /** The badge, the bell's label and "Mark all read". */
  renderCount() {
    const d = this.dom;
    const unread = this.list.unread;
    d.count.textContent = countText(unread);
    d.count.hidden = unread === 0;
    d.toggle.classList.toggle('unread', unread > 0);
    d.toggle.setAttribute('aria-label', bellLabel(unread));
    d.toggle.dataset.unread = String(unread);
    d.readAll.disabled = unread === 0;
  }

  /** Tells the server `body` (`{ids}`, or `{}` for all) was read; its count is the truth after. */
  async post(body) {
    const answer = await postJson('/api/notifications/read', body);
    if (answer.status === 200) {
      this.dom.error.textContent = '';
      this.list.setUnread(answer.data?.unread);
      this.renderCount();
    }
    return answer;
  }

  clicked(e) {
    const li = e.target.closest('li.notification');
    const n = li && this.list.get(Number(li.dataset.id));
    if (!n) return;
    // A new tab or window (a modified or middle click) leaves this page where it is.
    const elsewhere = e.button > 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey;
    if (n.url && !elsewhere) e.preventDefault();
    const wasUnread = this.list.markRead([n.id]).length > 0;
    if (wasUnread) {
      // Marked read where it is, not drawn afresh: the item keeps the focus, and the click stays
      // inside the panel (dropdown closes it on a click whose target left the page).
      li.classList.remove('unread');
      li.querySelector('.notification-open > .visually-hidden')?.remove();
      delete this.dom.list.dataset.html; // the next render draws the list whatever it held
      this.renderCount();
    }
    const sent = wasUnread ? this.post({ ids: [n.id] }) : Promise.resolve();
    if (!n.url || elsewhere) return;
    // Gone once the server heard (or after a moment: the page must not hang on it).
    const url = n.url;
    Promise.race([sent, new Promise((resolve) => setTimeout(resolve, READ_WAIT_MS))]).then(() => location.assign(url));
  }

  async readAll() {
    const d = this.dom;
    d.readAll.disabled = true;
    this.list.markAllRead();
    this.render();
    const answer = await this.post({});
    if (answer.status !== 200) {
      d.error.textContent = errorText(answer);
      this.load();
      return;
    }
    d.news.textContent = 'All notifications marked read.';
    if (d.panel.contains(document.activeElement) || document.activeElement === document.body) d.toggle.focus();
  }
}

/** Puts the bell into the top bar (`#notifications-menu`); call it only when logged in. */
export function installNotificationBar() {
  const slot = document.getElementById('notifications-menu');
  return slot ? new NotificationBar(slot) : null;
}
