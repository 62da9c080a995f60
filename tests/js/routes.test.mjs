// Each page's module list in client/js/routes.js against the real import graph: main.js
// announces a route's modules with <link rel="modulepreload"> before importing it, so a module
// missing from the list arrives one import level late, and one listed but not imported is
// downloaded for nothing. index.html preloads main.js's own imports the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ROUTES, routeFor } from '../../client/js/routes.js';

const JS = new URL('../../client/js/', import.meta.url);

/** The modules `path` (relative to client/js/) imports statically, as paths relative to client/js/. */
function imports(path) {
  const source = readFileSync(new URL(path, JS), 'utf8');
  const found = [...source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]);
  found.push(...[...source.matchAll(/^import\s+'([^']+)'/gm)].map((m) => m[1]));
  return found.map((spec) => new URL(spec, new URL(path, JS)).href.slice(JS.href.length));
}

/** `path` and everything it imports, directly or not. */
function closure(path, seen = new Set()) {
  if (seen.has(path)) return seen;
  seen.add(path);
  for (const next of imports(path)) closure(next, seen);
  return seen;
}

const common = closure('main.js');

test('each route lists exactly the modules its entry imports beyond main.js', () => {
  for (const route of ROUTES) {
    const needed = [...closure(route.module)].filter((m) => m !== route.module && !common.has(m)).sort();
    assert.deepEqual([...route.graph].sort(), needed, `routes.js: the graph of ${route.name} (${route.module})`);
  }
});

test('index.html preloads what main.js imports on every page', () => {
  const html = readFileSync(new URL('../index.html', JS), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/assets\/js\/([^"]+)">/g)].map((m) => m[1]).sort();
  assert.deepEqual(preloaded, [...common].filter((m) => m !== 'main.js').sort());
});

test('paths find their pages', () => {
  assert.equal(routeFor('/g/k3fq9mzt').route.name, 'game');
  assert.equal(routeFor('/g/k3fq9mzt').match[1], 'k3fq9mzt');
  assert.equal(routeFor('/@/Alice').route.name, 'player');
  assert.equal(routeFor('/@/%E0%A4%A').route.name, 'lobby', 'bad percent-encoding is no player');
  assert.equal(routeFor('/signup').match[1], 'signup');
  assert.equal(routeFor('/editor/').route.name, 'editor');
  assert.equal(routeFor('/account/tokens').route.name, 'tokens');
  assert.equal(routeFor('/nowhere').route.name, 'lobby');
});
