import { PromptArgumentError } from '../prompt.js';

/**
 * The value of a prompt argument, trimmed; undefined when it was not given or left blank (clients send "" for an
 * optional field the person did not fill in).
 */
export function argumentValue(args: Readonly<Record<string, string>>, name: string): string | undefined {
  const value = args[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The value of a required argument (the catalogue already refused a request without it), trimmed. */
export function requiredArgumentValue(args: Readonly<Record<string, string>>, name: string): string {
  const value = argumentValue(args, name);
  if (value === undefined) throw new PromptArgumentError(`${name} is required`);
  return value;
}
