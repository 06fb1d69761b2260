/**
 * An API that accepts connections and never answers: how long `gatehouse plan` takes to fail,
 * with the default time limits (10 s an attempt; the client gives up once the API has answered
 * nothing for five attempts' time). A fresh process, from spawn to exit. Aim: within 60 s.
 */
import { createServer } from 'node:net';
import { gatehouse, ipPolicies, row, seconds, writeFiles } from '../support.mjs';
import { join } from 'node:path';

export async function hungApiRow(work) {
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const dir = writeFiles(join(work, 'hung'), { 'policies.yaml': ipPolicies(5) });
    const env = { GATEHOUSE_API_URL: `http://127.0.0.1:${server.address().port}`, GATEHOUSE_API_KEY: 'bench-hung-key-0123456789' };
    const result = await gatehouse(['plan', dir], { env, expectCode: 1 });
    const said = /answered nothing for \d+ s/.test(result.stderr);
    return [
      row('hung API: plan fails after (default limits)', {
        measured: seconds(result.ms),
        result: said ? 'timeout, says so' : 'failed without saying why',
        aim: '<= 60 s',
        ok: result.ms <= 60_000 && said,
      }),
    ];
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}
