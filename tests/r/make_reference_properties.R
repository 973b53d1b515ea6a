# Reference values for analyses by system property (tests/unit/test_analysis_kinds.py),
# computed with R: the MANOVA of seed 003 Table 4's kind (two binary system
# properties and their interaction, unequal cells) and the means by property of
# its Table 3.
#
# Re-run from the repository root (needs R >= 4.2 with car and jsonlite; on
# Debian: apt-get install r-base-core r-cran-car r-cran-jsonlite):
#
#     Rscript tests/r/make_reference_properties.R
#
# It (re)writes tests/data/r_reference/properties.csv (made here with set.seed(),
# values rounded so that the CSV round-trips exactly) and R's results in
# tests/data/r_reference/properties.json, with the R and package versions used.

suppressPackageStartupMessages({
  library(car)
  library(jsonlite)
})

out_dir <- file.path("tests", "data", "r_reference")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

# Seven systems, 12 items each; cells of trainable x incremental have 1 to 3
# systems (unequal, as in seed 003, "unequal-sized samples").
set.seed(20070917)
systems <- data.frame(
  system = c("S1", "S2", "S3", "S4", "S5", "S6", "S7"),
  trainable = c(TRUE, TRUE, TRUE, FALSE, FALSE, TRUE, FALSE),
  incremental = c(TRUE, FALSE, FALSE, TRUE, TRUE, TRUE, FALSE)
)
rows <- do.call(rbind, lapply(seq_len(nrow(systems)), function(i) {
  s <- systems[i, ]
  base <- 0.55 + 0.12 * s$trainable + 0.05 * s$incremental -
    0.08 * (s$trainable & s$incremental)
  dice <- round(pmin(1, pmax(0, base + rnorm(12, 0, 0.1))), 3)
  masi <- round(pmin(1, pmax(0, dice - 0.15 + rnorm(12, 0, 0.06))), 3)
  data.frame(system = s$system, item = sprintf("i%02d", 1:12),
             trainable = s$trainable, incremental = s$incremental,
             dice = dice, masi = masi)
}))
path <- file.path(out_dir, "properties.csv")
write.csv(rows, path, row.names = FALSE, quote = TRUE)
data <- read.csv(path)  # R computes on exactly what Python reads

ref <- list(meta = list(
  r_version = R.version.string,
  car = as.character(packageVersion("car")),
  jsonlite = as.character(packageVersion("jsonlite"))
))

ref$manova_properties <- local({
  d <- data
  d$trainable <- factor(d$trainable); d$incremental <- factor(d$incremental)
  fit <- lm(cbind(dice, masi) ~ trainable * incremental, data = d,
            contrasts = list(trainable = contr.sum, incremental = contr.sum))
  m <- car::Manova(fit, type = 3)
  terms <- setdiff(m$terms, "(Intercept)")
  rows <- lapply(terms, function(term) {
    eig <- Re(eigen(qr.coef(qr(m$SSPE), m$SSP[[term]]), symmetric = FALSE)$values)
    st <- stats:::Pillai(eig, m$df[[term]], m$error.df)
    c(st, pf(st[2], st[3], st[4], lower.tail = FALSE))
  })
  list(
    term = terms,
    pillai = vapply(rows, function(r) r[1], 0), f = vapply(rows, function(r) r[2], 0),
    df1 = vapply(rows, function(r) r[3], 0), df2 = vapply(rows, function(r) r[4], 0),
    p = vapply(rows, function(r) r[5], 0)
  )
})

ref$means_by_property <- local({
  out <- list()
  for (prop in c("trainable", "incremental")) {
    for (measure in c("dice", "masi")) {
      key <- paste(measure, prop, sep = "_by_")
      out[[key]] <- list(
        level = tolower(as.character(sort(unique(data[[prop]])))),
        mean = unname(tapply(data[[measure]], data[[prop]], mean)),
        sd = unname(tapply(data[[measure]], data[[prop]], sd)),
        n = unname(as.integer(tapply(data[[measure]], data[[prop]], length)))
      )
    }
  }
  out
})

json <- toJSON(ref, auto_unbox = TRUE, digits = NA, pretty = TRUE)
writeLines(json, file.path(out_dir, "properties.json"), useBytes = TRUE)
cat("wrote", file.path(out_dir, "properties.json"), "\n")
