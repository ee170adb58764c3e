// Starts Swagger UI on the service's own OpenAPI document (docs/openapi.md "/docs").
// Everything is fetched from this origin: the document by a URL relative to
// /docs, and no validator (validatorUrl: null; the badge would call
// validator.swagger.io).
window.ui = SwaggerUIBundle({
  url: new URL("openapi.json", document.baseURI).href,
  dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  // Tags start collapsed: Swagger UI 5.35 stops drawing once ~127 operation
  // blocks are open at once (docs/openapi.md).
  docExpansion: "none",
  defaultModelsExpandDepth: 0,
  filter: true,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
