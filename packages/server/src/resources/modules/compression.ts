/** The compression module of a route (EndpointCompression, api-spec 2.7): `enabled` only. */
import { switchModule } from './switch.js';

export const compressionModule = switchModule('compression');
