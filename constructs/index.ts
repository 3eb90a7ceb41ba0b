/**
 * cdktf constructs that emit converge's desired-state documents (docs/manual/cdktf.md).
 * One ConvergeConfig per stack, then any number of resources.
 */
export { ConvergeConfig, type ConvergeConfigProps } from "./config.js";
export { ConvergeResource } from "./converge-resource.js";
export { AlternateContact, type AlternateContactProps } from "./alternate-contact.js";
export { Integration, type IntegrationProps } from "./integration.js";
export { Route, type RouteProps } from "./route.js";
export { RegionOptIn, type RegionOptInProps } from "./region-opt-in.js";
export { Api, type ApiProps } from "./api.js";
export { VEHICLES, type CliVehicle, type Vehicle } from "./vehicle.js";
