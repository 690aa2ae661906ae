import { InvalidClientError } from '../errors.js';

/** Why a Client ID Metadata Document was refused; the description says it in words, `reason` for code and logs. */
export type RefusalReason =
  | 'invalid_client_id'
  | 'host_not_permitted'
  | 'private_address'
  | 'fetch_failed'
  | 'timeout'
  | 'redirect'
  | 'http_status'
  | 'too_large'
  | 'invalid_document'
  | 'recently_refused';

/**
 * The client_id names a metadata document this site will not use as a client: to the OAuth endpoints it is an
 * unknown client (RFC 6749 5.2 `invalid_client`), with a description saying what was wrong with the document.
 */
export class MetadataDocumentRefusedError extends InvalidClientError {
  readonly reason: RefusalReason;

  constructor(reason: RefusalReason, description: string) {
    super(description);
    this.reason = reason;
  }
}
