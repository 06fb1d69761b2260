/** The response headers module of a route (api-spec 2.6, 4.6): headers added to and removed from the response. */
import { headersModule } from './headers.js';

export const responseHeadersModule = headersModule('response_headers');
