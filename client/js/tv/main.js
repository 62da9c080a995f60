// gambit TV, `/tv` (the `best` channel: the featured game between people) and `/tv/bots` (the
// `bot` channel: a game with a computer player), as on lichess: the game the server features
// on the channel, followed live as a spectator, and the other games being played beside it.
// The server says when the featured game changes; the page moves on by itself.
//
// Split as the game page is: the controller (ctrl.js) holds the state and handles messages, the
// view (view.js) draws it, the rules for the channels and the list are in channels.js. A
// channel tab switches in place (the address changes with it, and Back goes back).

import { setConnectionBadge } from '../ui.js';
import { CHANNELS, channelOf } from './channels.js';
import { TvCtrl } from './ctrl.js';
import { TvView } from './view.js';

/** Starts gambit TV on `channel` ('best' or 'bot') inside `root`; returns its controller. */
export function startTv(root, channel) {
  const ctrl = new TvCtrl(CHANNELS[channel] ? channel : 'best');
  const view = new TvView(root, ctrl, {
    onChannel: (next) => {
      if (!CHANNELS[next] || next === ctrl.channel) return;
      history.pushState(null, '', CHANNELS[next].path);
      ctrl.setChannel(next);
    },
  });
  window.addEventListener('popstate', () => ctrl.setChannel(channelOf(location.pathname)));
  ctrl.onStatus = (up) => setConnectionBadge(up);
  ctrl.redraw = () => view.render();
  view.render();
  ctrl.start();
  return ctrl;
}
