# R reference values for correlations (cor.test) and scale-invariant MANOVA
# (summary.manova), read by tests/unit/test_stats_corr_manova_r.py.
#
# Re-run from the repository root (needs R >= 4.2 with jsonlite):
#
#     Rscript tests/r/make_reference_corr_manova.R
#
# It (re)writes tests/data/r_reference/corr_systems.csv and manova_scale.csv (made
# here with set.seed(), values rounded so that the CSV round-trips exactly) and R's
# results in tests/data/r_reference/corr_manova.json, which records the R and
# package versions. It also reads tuna09_system_means.csv (made by
# make_reference.R). Deterministic: same R, same bytes.

suppressPackageStartupMessages(library(jsonlite))

out_dir <- file.path("tests", "data", "r_reference")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

write_data <- function(df, name) {
  write.csv(df, file.path(out_dir, paste0(name, ".csv")), row.names = FALSE,
            quote = TRUE, na = "")
  # read back, so that R computes on exactly what Python reads
  read.csv(file.path(out_dir, paste0(name, ".csv")), stringsAsFactors = FALSE)
}

# ---------------------------------------------------------------- data sets

# 14 systems, five measures: a, b, c continuous without ties; d continuous with
# two systems missing (S05, S12); e on a coarse scale, with ties.
set.seed(20240518)
n_sys <- 14
quality <- rnorm(n_sys)
corr_systems <- data.frame(
  system = sprintf("S%02d", seq_len(n_sys)),
  a = round(60 + 8 * quality + rnorm(n_sys, 0, 4), 3),
  b = round(0.5 + 0.05 * quality + rnorm(n_sys, 0, 0.06), 5),
  c = round(3000 - 150 * quality + rnorm(n_sys, 0, 200), 2),
  d = round(2 + 0.4 * quality + rnorm(n_sys, 0, 0.5), 4),
  e = round(4 + 0.6 * quality + rnorm(n_sys, 0, 0.6), 0)
)
corr_systems$d[c(5, 12)] <- NA
stopifnot(!anyDuplicated(corr_systems$a), !anyDuplicated(corr_systems$b),
          !anyDuplicated(corr_systems$c), anyDuplicated(corr_systems$e) > 0)
corr_systems <- write_data(corr_systems, "corr_systems")

tuna <- read.csv(file.path(out_dir, "tuna09_system_means.csv"), stringsAsFactors = FALSE)

# 3 systems x 2 domains x 5 items, three dependent variables on very different
# scales: a time in milliseconds (SD ~ 250), a score in [0, 1] (SD ~ 0.02) and a
# word count. Balanced, so R's sequential summary.manova equals Type III.
set.seed(20240519)
grid <- expand.grid(item = 1:5, domain = c("furniture", "people"),
                    system = c("A", "B", "C"), stringsAsFactors = FALSE)
sys_rt <- c(A = 0, B = 180, C = -90); sys_sc <- c(A = 0, B = -0.015, C = 0.01)
dom_rt <- c(furniture = -60, people = 60); dom_sc <- c(furniture = 0.005, people = -0.005)
manova_scale <- data.frame(
  system = grid$system, domain = grid$domain,
  rt_ms = round(2400 + sys_rt[grid$system] + dom_rt[grid$domain] + rnorm(nrow(grid), 0, 250)),
  score = round(0.82 + sys_sc[grid$system] + dom_sc[grid$domain] + rnorm(nrow(grid), 0, 0.02), 4),
  words = round(5 + (grid$system == "B") + rnorm(nrow(grid), 0, 1.2))
)
manova_scale <- write_data(manova_scale, "manova_scale")

# ---------------------------------------------------------------- helpers

# cor.test of every pair of `measures` over the systems of `df`, as pairwise_corr:
# listwise (systems complete on every measure) or pairwise (each pair's complete
# systems). exact = NULL: R's default (exact Spearman p without ties).
corr_table <- function(df, measures, method, deletion = "listwise", conf = 0.95) {
  if (deletion == "listwise") df <- df[complete.cases(df[measures]), ]
  pairs <- combn(measures, 2)
  out <- list(a = character(), b = character(), n = integer(), r = numeric(),
              t = numeric(), s = numeric(), df = numeric(), p = numeric(),
              ci_low = numeric(), ci_high = numeric(), ties = logical())
  for (k in seq_len(ncol(pairs))) {
    x <- df[[pairs[1, k]]]; y <- df[[pairs[2, k]]]
    ok <- complete.cases(x, y); x <- x[ok]; y <- y[ok]
    ties <- min(length(unique(x)), length(unique(y))) < length(x)
    ct <- suppressWarnings(cor.test(x, y, method = method, conf.level = conf))
    out$a <- c(out$a, pairs[1, k]); out$b <- c(out$b, pairs[2, k])
    out$n <- c(out$n, length(x)); out$r <- c(out$r, unname(ct$estimate))
    out$p <- c(out$p, ct$p.value); out$ties <- c(out$ties, ties)
    out$df <- c(out$df, length(x) - 2)
    if (method == "pearson") {
      out$t <- c(out$t, unname(ct$statistic)); out$s <- c(out$s, NA)
      ci <- if (is.null(ct$conf.int)) c(NA, NA) else as.numeric(ct$conf.int)
      out$ci_low <- c(out$ci_low, ci[1]); out$ci_high <- c(out$ci_high, ci[2])
    } else {
      out$t <- c(out$t, NA); out$s <- c(out$s, unname(ct$statistic))
      out$ci_low <- c(out$ci_low, NA); out$ci_high <- c(out$ci_high, NA)
    }
  }
  out
}

tests <- c("Wilks", "Pillai", "Hotelling-Lawley", "Roy")

manova_stats <- function(df, dvs) {
  f <- as.formula(paste0("cbind(", paste(dvs, collapse = ", "), ") ~ system * domain"))
  fit <- manova(f, data = df)
  res <- list()
  for (test in tests) {
    s <- summary(fit, test = test)$stats
    terms <- trimws(rownames(s))
    keep <- terms != "Residuals"
    res[[test]] <- list(term = terms[keep], value = s[keep, 2], f = s[keep, 3],
                        df1 = s[keep, 4], df2 = s[keep, 5], p = s[keep, 6])
  }
  # univariate follow-ups: one ANOVA per response, Bonferroni over the responses
  aovs <- summary.aov(fit)
  fu <- list(dv = character(), term = character(), ss = numeric(), df = numeric(),
             f = numeric(), p = numeric(), df_resid = numeric())
  for (k in seq_along(dvs)) {
    a <- aovs[[k]]; terms <- trimws(rownames(a)); keep <- terms != "Residuals"
    fu$dv <- c(fu$dv, rep(dvs[k], sum(keep))); fu$term <- c(fu$term, terms[keep])
    fu$ss <- c(fu$ss, a[keep, "Sum Sq"]); fu$df <- c(fu$df, a[keep, "Df"])
    fu$f <- c(fu$f, a[keep, "F value"]); fu$p <- c(fu$p, a[keep, "Pr(>F)"])
    fu$df_resid <- c(fu$df_resid, rep(a["Residuals", "Df"], sum(keep)))
  }
  fu$p_adj <- numeric(length(fu$p))
  for (term in unique(fu$term)) {
    i <- fu$term == term
    fu$p_adj[i] <- p.adjust(fu$p[i], "bonferroni")
  }
  res$followups <- fu
  res
}

# ---------------------------------------------------------------- results

ref <- list()
ref$meta <- list(r_version = R.version.string,
                 jsonlite = as.character(packageVersion("jsonlite")),
                 stats = as.character(packageVersion("stats")))

tuna_measures <- c("fluency", "adequacy", "id_acc", "id_speed", "acc", "se", "bleu", "nist")
peers <- tuna[!(tuna$system %in% c("HUMAN-1", "HUMAN-2")), ]
abc <- c("a", "b", "c"); all5 <- c("a", "b", "c", "d", "e")
first <- function(k) corr_systems[seq_len(k), ]

# each case: data, systems (first k, or all), measures, method, deletion, confidence
ref$correlations <- list(
  tuna_all_pearson = c(list(data = "tuna09_system_means", k = 8, measures = tuna_measures,
                            method = "pearson", deletion = "listwise", confidence = 0.95),
                       corr_table(tuna, tuna_measures, "pearson")),
  tuna_peers_pearson = c(list(data = "tuna09_system_means", k = 0, measures = tuna_measures,
                              method = "pearson", deletion = "listwise", confidence = 0.95),
                         corr_table(peers, tuna_measures, "pearson")),
  tuna_all_spearman = c(list(data = "tuna09_system_means", k = 8, measures = tuna_measures,
                             method = "spearman", deletion = "listwise", confidence = 0.95),
                        corr_table(tuna, tuna_measures, "spearman")),
  tuna_peers_spearman = c(list(data = "tuna09_system_means", k = 0, measures = tuna_measures,
                               method = "spearman", deletion = "listwise", confidence = 0.95),
                          corr_table(peers, tuna_measures, "spearman"))
)
for (k in c(4, 6, 9, 10, 11, 14)) {
  for (method in c("pearson", "spearman")) {
    name <- sprintf("first%d_%s", k, method)
    ref$correlations[[name]] <- c(
      list(data = "corr_systems", k = k, measures = abc, method = method,
           deletion = "listwise", confidence = 0.95),
      corr_table(first(k), abc, method))
  }
}
for (deletion in c("listwise", "pairwise")) {
  for (method in c("pearson", "spearman")) {
    for (conf in c(0.95, 0.9)) {
      if (method == "spearman" && conf != 0.95) next
      name <- sprintf("all_%s_%s_%02d", deletion, method, round(100 * conf))
      ref$correlations[[name]] <- c(
        list(data = "corr_systems", k = 14, measures = all5, method = method,
             deletion = deletion, confidence = conf),
        corr_table(corr_systems, all5, method, deletion, conf))
    }
  }
}

# rho = 1 over 6 systems (the exact p is 2/720, not 0) and the n = 9 / n = 10 switch
ref$spearman_perfect <- local({
  p <- list()
  for (n in c(5, 6, 9, 10, 12)) {
    x <- seq_len(n); y <- x^2
    p[[as.character(n)]] <- list(
      p_pos = cor.test(x, y, method = "spearman")$p.value,
      p_neg = cor.test(x, -y, method = "spearman")$p.value,
      p_pearson = cor.test(x, y)$p.value)
  }
  p
})

# MANOVA on the original data and with one DV rescaled by 1e3 and 1e-3
ms <- manova_scale
scaled <- function(col, factor) { d <- ms; d[[col]] <- d[[col]] * factor; d }
dvs <- c("rt_ms", "score", "words")
ref$manova_scale <- list(
  "original" = manova_stats(ms, dvs),
  "rt_ms*1e-3" = manova_stats(scaled("rt_ms", 1e-3), dvs),
  "rt_ms*1e3" = manova_stats(scaled("rt_ms", 1e3), dvs),
  "score*1e-3" = manova_stats(scaled("score", 1e-3), dvs),
  "score*1e3" = manova_stats(scaled("score", 1e3), dvs)
)

writeLines(toJSON(ref, digits = NA, auto_unbox = TRUE, pretty = TRUE, na = "null"),
           file.path(out_dir, "corr_manova.json"))
