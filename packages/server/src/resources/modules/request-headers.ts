/** The request headers module of a route: headers added and removed before the request goes upstream. */
import { headersModule } from './headers.js';

export const requestHeadersModule = headersModule('request_headers');
