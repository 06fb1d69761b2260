/**
 * What the disk under the bench's databases costs, for reading the POST row: a durable write
 * is answered only after an fsync of the WAL (README, "Writes: group commit"), so POSTs a
 * second are about the fsyncs a second times the writes each one answers, and on a virtual
 * disk an fsync's time moves with the host (104-520 us for the same 28 KB on 2026-11-28).
 * A POST ratio read without these figures cannot tell a slow disk from a slow server.
 */
import { closeSync, fdatasyncSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** What the probe overwrites before each fsync: about what one fsync of the WAL carries under the POST load. */
export const PROBE_BYTES = 28 * 1024;

/**
 * `fdatasync` after an overwrite of `bytes` bytes at the start of a file in `dir`, `times`
 * times (the file written and synced once first, so each sync flushes data, not a growing
 * size, as the WAL's do once it has wrapped): the median and 90th percentile, microseconds.
 */
export function fsyncLatency(dir, { bytes = PROBE_BYTES, times = 200 } = {}) {
  const path = join(dir, `gatehouse-fsync-probe-${process.pid}`);
  const block = Buffer.alloc(bytes, 0x5a);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, block, 0, bytes, 0);
    fdatasyncSync(fd);
    const took = [];
    for (let i = 0; i < times; i++) {
      block[i % bytes] ^= 1;
      writeSync(fd, block, 0, bytes, 0);
      const start = process.hrtime.bigint();
      fdatasyncSync(fd);
      took.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    took.sort((a, b) => a - b);
    const at = (q) => took[Math.min(took.length - 1, Math.floor(q * took.length))];
    return { p50: at(0.5), p90: at(0.9) };
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
}

/**
 * Cache flushes completed so far by the machine's whole disks (/proc/diskstats' 16th statistic,
 * Linux 5.5 on; partitions left out, their flushes are their disk's), or NaN where unknown. The
 * count is the machine's: read during a POST run on a quiet machine, it is the server's fsyncs.
 */
export function diskFlushes() {
  try {
    const disks = new Set(readdirSync('/sys/block').filter((name) => !/^(loop|ram|zram)/.test(name)));
    let total = 0;
    let seen = false;
    for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 20 || !disks.has(fields[2])) continue;
      total += Number(fields[18]);
      seen = true;
    }
    return seen ? total : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
