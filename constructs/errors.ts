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

export function cliUnusedByProvider(cli: string): string {
  return `cli ${JSON.stringify(cli)} is not used by the provider vehicle: terraform runs converge's own provider, and no provisioner runs the CLI; leave cli out, or choose the null_resource or terraform_data vehicle`;
}

export function switchingWithoutProvider(from: string, vehicle: string): string {
  return `switchingFrom ${JSON.stringify(from)} is not valid with vehicle ${JSON.stringify(vehicle)}: expected vehicle "provider" (switchingFrom names the CLI vehicle a deployed stack moves from to converge's provider); leave switchingFrom out`;
}

export function renamedFromItself(path: string, previousPath: string): string {
  return `[${path}] renamedFrom ${JSON.stringify(previousPath)} names the construct's own terraform resource: expected the path below the stack the construct had before its rename`;
}

export function tokenVariableWithProvider(name: string): string {
  return `tokenEnvironmentVariable ${JSON.stringify(name)} is not available with the provider vehicle: the provider reads its token from CONVERGE_TOKEN where terraform runs (it is never written into cdk.tf.json); leave tokenEnvironmentVariable out and set CONVERGE_TOKEN`;
}

export function hclWithProvider(): string {
  return "the provider vehicle writes cdk.tf.json only: its resources are generic elements of converge's provider, which cdktf cannot write as HCL; synthesize without --hcl (the App's hclOutput, SYNTH_HCL_OUTPUT)";
}

export function pruneWithProvider(prune: unknown): string {
  return `prune ${JSON.stringify(prune)} is refused with the provider vehicle: terraform deletes only what its own configuration made, so deleting the API's routes and integrations that no construct declares is converge's job (converge apply --prune, or the null_resource or terraform_data vehicle); leave prune out`;
}

export function terraformNameTaken(address: string, holder: string): string {
  return `the construct's terraform name ${address} is already ${holder}: give the construct another id (names are the construct's path below the stack, with characters other than letters, digits, '_' and '-' as '_')`;
}

/**
 * The message of the postcondition an Api construct puts on its `converge_api` data source with the
 * provider vehicle, shown by terraform when the live API has another protocol: a terraform template
 * (the caller makes the construct path and API literal, and passes the live protocol as a reference).
 */
export function protocolMismatchCondition(constructPath: string, protocolType: string, api: string, liveProtocol: string): string {
  return `protocolType ${JSON.stringify(protocolType)} of the Api construct at "${constructPath}" does not match API ${api}, which is ${liveProtocol}: declare the API's protocol, or another API`;
}
