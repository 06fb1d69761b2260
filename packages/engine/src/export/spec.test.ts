import { describe, expect, test } from 'vitest';
import { httpsEdgeRoute } from '../kinds/https-edge.js';
import { interpolate } from '../load/interpolate.js';
import type { LoadedDocument } from '../load/documents.js';
import { toManifestSpec } from './spec.js';

const ctx = { names: new Map<string, string>(), secret: () => 'SECRET' };
const loaded = (value: unknown): LoadedDocument => ({ file: 'm.yaml', index: 0, value, locate: () => ({ file: 'm.yaml', line: 1, col: 1 }) });

describe('export writes text that load reads back as the live value', () => {
  const texts = ['${req.url.path}', '$${x}', '${env:LITERAL}', '$${env:X}', '$$HOME', '$HOME', 'cost $5', '${var:stage}', 'a $ b $'];

  test.each(texts)('%s: in a traffic policy and a header value (the service interpolates them) and in a description', (text) => {
    const normal = httpsEdgeRoute.fromLive(
      {
        match_type: 'path_prefix',
        match: '/',
        description: text,
        traffic_policy: { enabled: true, value: text },
        request_headers: { enabled: true, add: { 'x-a': text }, remove: [] },
      },
      undefined,
    );
    const spec = toManifestSpec(httpsEdgeRoute, normal, ctx, 'edge');
    // The service's own ${...} is written as it is, without an escape, where load keeps it.
    if (text === '${req.url.path}') expect((spec.traffic_policy as { value: string }).value).toBe(text);
    const { documents, problems } = interpolate([loaded({ kind: 'HTTPSEdge', name: 'edge', spec: { routes: [spec] } })], {});
    expect(problems).toEqual([]);
    const route = (documents[0]!.value as { spec: { routes: Record<string, any>[] } }).spec.routes[0]!;
    expect([route.description, route.traffic_policy.value, route.request_headers.add['x-a']]).toEqual([text, text, text]);
  });
});
