// A small HTTP server with a planted leak: every /login puts a session in
// a global Map that nothing ever empties. A session holds its id, a token
// string, a prefs object and a closure (onChange) over them. /work
// allocates and drops; /snapshot?name=N writes a heap snapshot to
// DIR/N.heapsnapshot.
//
// Usage: node sessions.js DIR
//   serves on a port of 127.0.0.1 it prints on standard output.
// Usage: node sessions.js DIR ROUNDS [LOGINS]
//   drives itself: ROUNDS rounds of LOGINS logins (default 300; 0 for a
//   server that does not leak) and 100 /work requests, each round ending
//   with a snapshot DIR/round-K.heapsnapshot (K from 1), then exits.
const http = require('http');
const v8 = require('v8');
const dir = process.argv[2] || '.';
const sessions = new Map();
globalThis.sessions = sessions;
let next = 0;

function login(user) {
  const id = `sess-${next++}-${user}`;
  const prefs = { theme: 'dark', lang: 'en', user };
  const token = `token:${id}:`.repeat(8);
  sessions.set(id, {
    id, token, prefs,
    onChange: function onChange(key, value) { prefs[key] = value; return token.length; },
  });
}

function work() {
  const scratch = [];
  for (let i = 0; i < 100; i++) scratch.push({ i, s: `tmp-${i}` });
  return scratch.length;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  switch (url.pathname) {
    case '/login': login(url.searchParams.get('user') || 'anon'); break;
    case '/work': work(); break;
    case '/snapshot': v8.writeHeapSnapshot(`${dir}/${url.searchParams.get('name')}.heapsnapshot`); break;
    default: res.statusCode = 404;
  }
  res.end('ok\n');
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(port, path) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
}

async function drive(port, rounds, logins) {
  for (let r = 1; r <= rounds; r++) {
    for (let i = 0; i < logins; i++) await get(port, `/login?user=u${i % 7}`);
    for (let i = 0; i < 100; i++) await get(port, '/work');
    await get(port, `/snapshot?name=round-${r}`);
  }
  agent.destroy();
  server.close();
}

server.listen(0, '127.0.0.1', () => {
  const port = server.address().port;
  if (process.argv[3] === undefined) {
    console.log(port);
    return;
  }
  drive(port, Number(process.argv[3]), Number(process.argv[4] ?? 300)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
});
