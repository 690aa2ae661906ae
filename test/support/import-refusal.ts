import { expect } from 'chai';
import { ValidationError } from '../../src/shared/errors.js';

/** The ValidationError an import refused with; fails when the import went through. */
export async function importRefusal(promise: Promise<unknown>): Promise<ValidationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected the import to be refused');
}
