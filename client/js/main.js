// The client's entry point: draws the pieces once, puts the player's name and account in the top
// bar, then shows the page the path names: the lobby at `/`, a game at `/g/{id}`, the forms at
// `/login` and `/signup`, a player at `/@/{name}`, the leaderboard at `/leaderboard`, the board
// editor at `/editor`, the API tokens at `/account/tokens`, the bots at `/bots`, gambit TV at
// `/tv` and `/tv/bots`. One page serves them all so every link works as a bookmark and survives
// a reload. Logged in, every page follows the player's event stream (events.js) for the top
// bar's challenges and its notifications bell.
//
// Only the top bar's modules are imported statically (index.html preloads them): each page's
// own code comes with a dynamic `import()` of its route, so the lobby never downloads the
// editor. So that a route's modules do not arrive one import level at a time, the route's
// whole module graph is announced at once with `<link rel="modulepreload">` before the import
// (the routes and their module lists are in routes.js).

import { installTopBar, me } from './account.js';
import { installNameBox } from './namebox.js';
import { installPieces } from './pieces.js';
import { routeFor } from './routes.js';
import { installPrefsMenu } from './prefsMenu.js';
import { armSound } from './sound.js';

/** Announces modules the page is about to import, so they download side by side. */
function preload(paths) {
  const seen = new Set([...document.querySelectorAll('link[rel="modulepreload"]')].map((l) => l.href));
  for (const path of paths) {
    // Beside this module, under the same versioned prefix (see web.rs), so each module has one URL.
    const href = new URL(path, import.meta.url).href;
    if (seen.has(href)) continue;
    seen.add(href);
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    document.head.append(link);
  }
}

installPieces();
installNameBox();
installTopBar();
// Sound and the other preferences, on every page: the mute button and the settings panel.
installPrefsMenu();
armSound();
me().then(async (who) => {
  if (!who) return;
  // Only a logged-in player has challenges and notifications to show in the top bar.
  preload(['challengeBar.js', 'challenges.js', 'corres.js', 'events.js', 'ndjson.js', 'notificationBar.js', 'notifications.js']);
  const [{ installChallengeBar }, { installNotificationBar }, { startEvents }] = await Promise.all([
    import('./challengeBar.js'), import('./notificationBar.js'), import('./events.js'),
  ]);
  installChallengeBar(who);
  installNotificationBar();
  startEvents();
});

/**
 * The game page's controller on `/g/{id}` (null on the other pages, and until the game page's
 * code has loaded). Nothing in the client reads it: it is for the browser tests and the
 * curious, who reach it with `import(document.querySelector('script[type=module]').src)` (the
 * binding is live; the URL carries the assets' version).
 */
export let page = null;

/** Resolves once the page's own code has started (to its controller, or null). */
export const ready = (async () => {
  const root = document.getElementById('app');
  const { route, match } = routeFor(location.pathname);
  document.body.classList.add(`page-${route.name}`);
  preload([route.module, ...route.graph]);
  const module = await import(`./${route.module}`);
  page = route.start(module, root, match, { account: me() }) ?? null;
  return page;
})();
