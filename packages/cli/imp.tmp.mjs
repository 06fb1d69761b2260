let last = process.cpuUsage(); const t0 = last; const out = [];
for (const m of process.argv.slice(2)) { await import(m); const c = process.cpuUsage(); out.push(`${m.replace(/.*\//, '')} ${((c.user + c.system - last.user - last.system) / 1000).toFixed(0)}`); last = c; }
out.push(`total ${((last.user + last.system - t0.user - t0.system) / 1000).toFixed(0)}`);
console.log(out.join(' | '));
