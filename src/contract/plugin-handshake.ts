/**
 * go-plugin's handshake with terraform, as facts both sides of converge need: the provider's runtime
 * checks them when terraform starts it, and the release starts the provider the same way to verify
 * and to record its bytecode order. terraform sets the magic cookie (so that a plugin started by
 * hand refuses to run) and the protocol versions it speaks.
 */
export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
/** The plugin protocol version converge's provider speaks (tfplugin6). */
export const PROTOCOL_VERSION = 6;
