/**
 * Error messages of the constructs, one factory each (the cdktf `lib/errors.ts` style): what went
 * wrong, the value received, what was expected and how to fix it.
 */

export function missingConfig(stackPath: string): Error {
  return new Error(`no ConvergeConfig in stack "${stackPath}": create one before the first converge construct, e.g. new ConvergeConfig(stack, "converge", { endpoint: "http://127.0.0.1:4566" })`);
}

export function duplicateConfig(stackPath: string, existingPath: string): Error {
  return new Error(`stack "${stackPath}" already has a ConvergeConfig at "${existingPath}": declare one per stack`);
}

export function targetNotInStack(targetPath: string, stackPath: string): string {
  return `target is the Integration at "${targetPath}", which belongs to another stack: a route and the integration it targets must be declared in the same stack ("${stackPath}")`;
}

export function targetInOtherApi(targetPath: string, targetApi: string, routeApi: string): string {
  return `target is the Integration at "${targetPath}" of API ${targetApi}, but the route belongs to API ${routeApi}: a route can only target an integration of its own API`;
}

export function targetNotIntegration(received: string): string {
  return `target ${received} is not valid: expected an Integration construct, "integrations/<integrationId>" or null`;
}

export function inventoryTooLarge(stackPath: string, resources: number, characters: number, limit: number): string {
  return `stack "${stackPath}" declares ${resources} deletable resources, whose inventory takes about ${characters} characters of the provisioner's environment (at most ${limit}): split the stack into several stacks`;
}

export function triggerKeyTaken(key: string): string {
  return `the construct's path ${JSON.stringify(key)} is the key the stack's apply resource keeps the sha256 of its desired-state file under: give the construct another id`;
}
