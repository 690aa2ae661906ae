import type { components } from '../../../../generated/admin-api.js';
import type { Form as FormModel, FormResponse as FormResponseModel } from '../../../content/forms.js';

export type Form = components['schemas']['Form'];
export type FormResponse = components['schemas']['FormResponse'];

export function formRepresentation(form: FormModel): Form {
  return {
    id: form.id,
    title: form.title,
    fields: form.fields.map((field) => ({ ...field })),
    responseCount: form.responseCount,
    createdAt: form.createdAt.toISOString(),
    updatedAt: form.updatedAt.toISOString(),
  };
}

export function formResponseRepresentation(response: FormResponseModel): FormResponse {
  return {
    id: response.id,
    formId: response.formId,
    respondent: response.respondent,
    answers: response.answers.map((answer) => ({ ...answer })),
    submittedAt: response.submittedAt.toISOString(),
  };
}
