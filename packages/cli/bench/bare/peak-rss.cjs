/**
 * Preloaded (`node --require`) into a measured command: at exit, appends the process's peak
 * resident set size in bytes to the file named by GATEHOUSE_BENCH_RSS_FILE.
 */
const { appendFileSync } = require('node:fs');
process.on('exit', () => {
  appendFileSync(process.env.GATEHOUSE_BENCH_RSS_FILE, `${process.resourceUsage().maxRSS * 1024}\n`);
});
