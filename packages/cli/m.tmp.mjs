const t0 = process.cpuUsage(); const w0 = performance.now();
const { ensureManifest } = await import('./dist/startup/manifest.js');
const t1 = process.cpuUsage(t0);
await ensureManifest(process.cwd());
const t2 = process.cpuUsage(t0);
console.log('import', ((t1.user + t1.system) / 1000).toFixed(1), 'ensure', ((t2.user + t2.system - t1.user - t1.system) / 1000).toFixed(1), 'wall', (performance.now() - w0).toFixed(1));
