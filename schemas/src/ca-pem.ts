/**
 * The structure of a certificate authority's `ca_pem` (api-spec 2.7 mutual TLS, 6.3
 * certificate_authority_* payload): one or more `CERTIFICATE` blocks and nothing else.
 *
 * Shared by the reference server (which then reads each certificate's fields) and the engine
 * (which checks a manifest's PEM at validate time), so both refuse the same text with the same
 * reason. Reasons never echo the text: a private key pasted by mistake is named, not shown.
 */
import { X509Certificate } from 'node:crypto';

export type PemBlocks = { ok: true; certificates: Buffer[] } | { ok: false; reason: string };

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
const BASE64 = /^[A-Za-z0-9+/=\s]+$/;

/** The DER bytes of each CERTIFICATE block, or why the text is not a PEM certificate bundle. */
export function splitPemCertificates(pem: string): PemBlocks {
  const blocks = [...pem.matchAll(BLOCK)];
  if (blocks.length === 0) {
    return { ok: false, reason: 'no PEM block found; expected one or more -----BEGIN CERTIFICATE----- blocks' };
  }
  const leftover = pem.replace(BLOCK, '').trim();
  if (leftover !== '') return { ok: false, reason: 'text outside the PEM blocks; send only CERTIFICATE blocks' };
  const certificates: Buffer[] = [];
  for (const [index, block] of blocks.entries()) {
    const label = block[1]!;
    const body = block[2]!;
    const which = `block ${index + 1}`;
    if (label !== 'CERTIFICATE') return { ok: false, reason: `${which} is a ${label}, not a CERTIFICATE; send only certificates` };
    if (!BASE64.test(body)) return { ok: false, reason: `${which} is not base64` };
    certificates.push(Buffer.from(body.replace(/\s+/g, ''), 'base64'));
  }
  return { ok: true, certificates };
}

/** Why a DER certificate does not parse (node's X509Certificate, i.e. OpenSSL), or undefined. */
export function x509Problem(der: Buffer): string | undefined {
  try {
    new X509Certificate(der);
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^error:[0-9A-F]+:/, '');
  }
}

/** Why `pem` is not a valid CA bundle (structure, then each certificate), or undefined. */
export function caPemProblem(pem: string): string | undefined {
  const split = splitPemCertificates(pem);
  if (!split.ok) return split.reason;
  for (const [index, der] of split.certificates.entries()) {
    const problem = x509Problem(der);
    if (problem) return `block ${index + 1} is not a valid X.509 certificate (${problem})`;
  }
  return undefined;
}
