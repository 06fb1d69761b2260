/** proxy-from-env 2 ships no types; its one function (the same as in version 1). */
declare module 'proxy-from-env' {
  /** The proxy URL for `url` from `*_proxy`/`*_PROXY` and `NO_PROXY`, or '' for none. */
  export function getProxyForUrl(url: string | URL): string;
}
