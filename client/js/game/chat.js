// The chat beside the board: the lines of the rooms this page reads, the room to write in, a
// mute switch per room (remembered on this browser), and the box that sends a line on Enter.
// What people write is text, always: each line is built with `textContent`, never as markup.

import { nameForChat } from '../namebox.js';
import { CHAT_MAX, ROOM_NAMES, ROOMS } from '../social.js';
import { loadMute, saveMute } from '../store.js';
import { pick } from '../ui.js';

export const template = `
        <section id="chat" class="chat" aria-labelledby="chat-title" hidden>
          <div class="chat-head">
            <h2 id="chat-title">Chat</h2>
            <label class="chat-to" id="chat-room-label" hidden>Write to <select id="chat-room"></select></label>
          </div>
          <ol id="chat-log" class="chat-log" role="log" aria-live="polite" aria-label="Chat lines"></ol>
          <form id="chat-form" class="chat-form" autocomplete="off">
            <input id="chat-input" maxlength="${CHAT_MAX}" aria-label="Chat line" enterkeyhint="send">
            <button type="submit" id="chat-send">Send</button>
          </form>
          <div class="chat-mutes">
            ${ROOMS.map((room) => `<label class="mute" id="mute-${room}-label" hidden><input type="checkbox" id="mute-${room}"> Mute ${room}</label>`).join('')}
          </div>
        </section>`;

export class ChatView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    const d = pick(root, {
      box: '#chat', log: '#chat-log', form: '#chat-form', room: '#chat-room', roomLabel: '#chat-room-label', input: '#chat-input', send: '#chat-send',
    });
    this.dom = d;
    this.mutes = Object.fromEntries(ROOMS.map((room) => [room, root.querySelector(`#mute-${room}`)]));
    this.muteLabels = Object.fromEntries(ROOMS.map((room) => [room, root.querySelector(`#mute-${room}-label`)]));
    this.epoch = -1; // the controller's chat epoch the log shows
    this.shown = 0; // how many of its lines
    this.rooms = '';
    for (const room of ROOMS) {
      this.mutes[room].checked = loadMute(room);
      this.mutes[room].addEventListener('change', () => {
        saveMute(room, this.mutes[room].checked);
        this.render();
      });
    }
    d.room.addEventListener('change', () => this.render());
    d.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.send();
    });
  }

  async send() {
    const d = this.dom;
    const room = d.room.value;
    // A spectator chats under this browser's name: asked for the first time.
    const name = this.ctrl.seat ? null : await nameForChat();
    if (!this.ctrl.seat && !name) return;
    if (this.ctrl.sendChat(room, d.input.value, name)) d.input.value = '';
    d.input.focus();
  }

  render() {
    const ctrl = this.ctrl;
    const d = this.dom;
    const rooms = ctrl.chatRooms();
    d.box.hidden = rooms.length === 0;
    if (!rooms.length) return;
    this.renderRooms(rooms);
    for (const room of ROOMS) {
      d.log.classList.toggle(`mute-${room}`, this.mutes[room].checked);
      this.muteLabels[room].hidden = !rooms.includes(room);
    }
    // Both rooms in one log: the spectators' lines are told apart.
    d.log.classList.toggle('both', rooms.length > 1);
    this.renderLines();
    // Writing in a muted room would be writing blind: unmute it first.
    const muted = this.mutes[d.room.value]?.checked;
    d.input.disabled = !ctrl.connected || muted;
    d.send.disabled = d.input.disabled;
    d.input.placeholder = muted ? `You muted the ${d.room.value}` : `Message the ${d.room.value}…`;
    if (ctrl.chatRestore !== null) {
      if (!d.input.value) d.input.value = ctrl.chatRestore;
      ctrl.chatRestore = null;
    }
  }

  /** The room picker: the rooms this page may write in; shown only when there is a choice. */
  renderRooms(rooms) {
    const d = this.dom;
    const key = rooms.join(' ');
    if (key === this.rooms) return;
    this.rooms = key;
    const chosen = rooms.includes(d.room.value) ? d.room.value : rooms[0];
    d.room.replaceChildren(...rooms.map((room) => new Option(ROOM_NAMES[room], room)));
    d.room.value = chosen;
    d.roomLabel.hidden = rooms.length < 2;
  }

  /** Adds the lines the log does not show yet (all of them again after a clear). */
  renderLines() {
    const { log } = this.dom;
    const chat = this.ctrl.chat;
    if (chat.epoch !== this.epoch) {
      log.replaceChildren();
      this.epoch = chat.epoch;
      this.shown = 0;
    }
    if (this.shown >= chat.lines.length) return;
    // Follow the newest line, unless the reader scrolled back to read older ones.
    const follow = this.shown === 0 || log.scrollHeight - log.scrollTop - log.clientHeight < 24;
    log.append(...chat.lines.slice(this.shown).map(lineNode));
    this.shown = chat.lines.length;
    if (follow) log.scrollTop = log.scrollHeight;
  }
}

/** One line, "from: text", as text. */
function lineNode(line) {
  const li = document.createElement('li');
  li.className = 'chat-line';
  li.dataset.room = line.room;
  // The server's own lines (an engine seat failing) stand apart from what people write.
  if (line.system) li.dataset.system = 'true';
  if (line.at) li.title = `${ROOM_NAMES[line.room]} · ${new Date(line.at).toLocaleTimeString()}`;
  const from = document.createElement('span');
  from.className = 'chat-from';
  from.textContent = line.from;
  const text = document.createElement('span');
  text.className = 'chat-text';
  text.textContent = line.text;
  li.append(from, ': ', text);
  return li;
}
