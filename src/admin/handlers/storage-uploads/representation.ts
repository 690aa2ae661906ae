import type { components } from '../../../../generated/admin-api.js';
import { uploadPublicUrl } from '../../../storage/public-url.js';
import type { StorageUpload as StorageUploadModel } from '../../../storage/uploads.js';
import { ADMIN_API_BASE_PATH } from '../../contract.js';

export type StorageUpload = components['schemas']['StorageUpload'];

export function uploadUrl(origin: string, uploadId: number): string {
  return `${origin}${ADMIN_API_BASE_PATH}/storage/uploads/${uploadId}`;
}

export function uploadRepresentation(origin: string, upload: StorageUploadModel): StorageUpload {
  return {
    id: upload.id,
    objectKey: upload.objectKey,
    filename: upload.filename,
    contentType: upload.contentType,
    sizeBytes: upload.sizeBytes,
    state: upload.state,
    uploadUrl: `${uploadUrl(origin, upload.id)}/content`,
    uploadMethod: 'PUT',
    url: uploadPublicUrl(origin, upload),
    expiresAt: upload.expiresAt.toISOString(),
    uploadedAt: upload.uploadedAt?.toISOString() ?? null,
    createdAt: upload.createdAt.toISOString(),
    updatedAt: upload.updatedAt.toISOString(),
  };
}
