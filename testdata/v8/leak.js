// Leaks N LeakedThing objects between the first two snapshots and keeps M
// Temporary objects only until the second: diff s1 s2 s3 must name exactly
// N LeakedThing objects as new and still alive, and no Temporary.
const v8 = require('v8');
const dir = process.argv[2] || '.';
const N = Number(process.argv[3] || 137), M = Number(process.argv[4] || 59);
class LeakedThing { constructor(i) { this.i = i; } }
class Temporary { constructor(i) { this.i = i; } }
const leakBox = [];
globalThis.leakBox = leakBox;
const snap = (n) => v8.writeHeapSnapshot(`${dir}/s${n}.heapsnapshot`);
function allocate() {
  for (let i = 0; i < N; i++) leakBox.push(new LeakedThing(i));
  const temps = [];
  for (let i = 0; i < M; i++) temps.push(new Temporary(i));
  globalThis.temps = temps;
}
function release() { globalThis.temps = undefined; }
snap(1);
setTimeout(() => {
  allocate();
  setTimeout(() => {
    snap(2);
    release();
    setTimeout(() => snap(3), 0);
  }, 0);
}, 0);
