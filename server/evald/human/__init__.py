"""Human evaluation: FMEval's five rating mechanisms, rated by people through evald.

Tasks hold dataset rows with one or two models' responses; annotators (API keys with the role
``annotator``, or named raters when authentication is off) rate the rows assigned to them; the
report gives FMEval's figures plus inter-rater agreement and agreement with a judge metric.
"""
