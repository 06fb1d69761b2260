/** How long the API has kept silent: only while attempts wait, reset by any answer. */
import { describe, expect, it } from 'vitest';
import { Silence } from './silence.js';

describe('Silence', () => {
  it('counts time with attempts in flight and no answer, across attempts, but not the time between them', () => {
    let t = 0;
    const silence = new Silence(50, () => t);
    silence.sent();
    t = 10;
    silence.ended(false);
    t = 1000; // a backoff or a wait for the rate limit: not silence
    expect(silence.elapsedMs()).toBe(10);
    silence.sent();
    silence.sent();
    t = 1030;
    silence.ended(false);
    expect(silence.elapsedMs()).toBe(40);
    t = 1040;
    expect(silence.remainingMs()).toBe(0);
    silence.ended(false);
    expect(silence.remainingMs()).toBe(0);
  });

  it('starts again from any answer', () => {
    let t = 0;
    const silence = new Silence(50, () => t);
    silence.sent();
    silence.sent();
    t = 40;
    silence.ended(true);
    expect(silence.elapsedMs()).toBe(0);
    t = 45;
    expect(silence.elapsedMs()).toBe(5);
    silence.ended(false);
    expect(silence.remainingMs()).toBe(45);
  });
});
