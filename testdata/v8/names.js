// Takes one heap snapshot of objects held in the ways a retainer path
// names: a global's property (sessions, a Map of plain objects), a
// closure's variable (onChange, a function whose context holds handlers),
// a Set's and a WeakMap's entries, a long string and a concatenated one.
// conformance/paths_test.go reads the names of their retainer paths.
const v8 = require('v8');
const dir = process.argv[2] || '.';
class Session { constructor(user) { this.user = user; this.cart = []; } }
class Handler { constructor(name) { this.name = name; } }
class Entry { constructor(n) { this.n = n; } }
class Tagged { constructor(n) { this.n = n; } }
const sessions = new Map();
for (let i = 0; i < 3; i++) sessions.set('user' + i, { session: new Session('user' + i), opened: new Date(i) });
globalThis.sessions = sessions;
function makeWatcher() {
  const handlers = [new Handler('save'), new Handler('load')];
  return function onChange() { return handlers.length; };
}
globalThis.watcher = makeWatcher();
globalThis.seen = new Set([new Entry(1), new Entry(2)]);
const keys = [{ key: 1 }];
globalThis.keys = keys;
globalThis.tags = new WeakMap([[keys[0], new Tagged(7)]]);
globalThis.motto = ['a long line of text, ', 'and more of it'].join('').repeat(3) + String(Date.now() % 1);
// A small integer (port) is kept in the object, not held by an edge: the
// object is named by its other properties.
globalThis.config = { port: 8080, host: 'localhost', 'odd, name': true };
v8.writeHeapSnapshot(`${dir}/names.heapsnapshot`);
