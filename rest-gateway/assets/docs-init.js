// Starts Swagger UI on the service's own OpenAPI document (issue 17 item 3).
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
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  filter: true,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
