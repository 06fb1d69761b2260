/**
 * For tests of the WAL's fsync thread (src/db/wal-syncer.ts): an `fdatasyncSync` that fails,
 * stalls or waits for the test's word, as an Int32Array over `workerData.fdatasyncModuleData`
 * (shared with the test) says. Slots:
 *   0 FAIL_NEXT  1: the next call throws EIO (and sets this back to 0), after SLOW_MS and HOLD
 *   1 SLOW_MS    each call first sleeps this long (a busy disk)
 *   2 HOLD       1: each call then waits until the test releases it
 *   3 STARTED    calls begun so far
 *   4 RELEASED   calls the test has let go on (see HOLD)
 *   5            only slept on (SLOW_MS)
 *   6 CRASH_NEXT 1: the next call ends the thread instead (a crash, no fsync failed)
 *   7 DONE       calls completed so far
 * It is CommonJS because the worker `require`s it as it is, untransformed.
 */
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');

const control = new Int32Array(workerData.fdatasyncModuleData);
const [FAIL_NEXT, SLOW_MS, HOLD, STARTED, RELEASED, SLEEP, CRASH_NEXT, DONE] = [0, 1, 2, 3, 4, 5, 6, 7];

exports.fdatasyncSync = (fd) => {
  const ticket = Atomics.add(control, STARTED, 1) + 1;
  const slowMs = Atomics.load(control, SLOW_MS);
  if (slowMs > 0) Atomics.wait(control, SLEEP, 0, slowMs);
  if (Atomics.load(control, HOLD) === 1) {
    for (let released = Atomics.load(control, RELEASED); released < ticket; released = Atomics.load(control, RELEASED)) {
      Atomics.wait(control, RELEASED, released);
    }
  }
  if (Atomics.compareExchange(control, CRASH_NEXT, 1, 0) === 1) process.exit(70);
  if (Atomics.compareExchange(control, FAIL_NEXT, 1, 0) === 1) {
    throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  }
  fs.fdatasyncSync(fd);
  Atomics.add(control, DONE, 1);
};
